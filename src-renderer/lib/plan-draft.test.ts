import { describe, expect, it } from 'vitest';
import { normalizePlan } from './plan-model.js';

const q = (value: number | null, formula = 'f') => ({ value, formula });

describe("the plan's draft section", () => {
  it('reads what the draft costs the model, the break-even tokens per pass, whether it pays and why', () => {
    const p = normalizePlan({
      layers: [],
      draft: {
        path: '/m/d.gguf',
        sharedBytes: q(100, 'shared'),
        ownWeightBytes: q(0),
        overheadBytes: q(30),
        residentCostBytes: q(64, 'cost'),
        extraReadPerPassBytes: q(64),
        breakEvenTokensPerPass: q(1.25),
        pays: true,
        reason: 'each verify pass reads 320 B (64 B more than without the draft)',
      },
    });
    expect(p.draft).toEqual({
      path: '/m/d.gguf',
      sharedBytes: 100,
      ownWeightBytes: 0,
      overheadBytes: 30,
      residentCostBytes: 64,
      extraReadPerPassBytes: 64,
      breakEvenTokensPerPass: 1.25,
      pays: true,
      reason: 'each verify pass reads 320 B (64 B more than without the draft)',
      formulas: ['sharedBytes: shared', 'ownWeightBytes: f', 'overheadBytes: f', 'residentCostBytes: cost', 'extraReadPerPassBytes: f', 'breakEvenTokensPerPass: f'],
    });
  });

  it('none without a draft; unknown figures stay unknown', () => {
    expect(normalizePlan({ layers: [], draft: null }).draft).toBeNull();
    expect(normalizePlan({ layers: [] }).draft).toBeNull();
    const d = normalizePlan({ draft: { breakEvenTokensPerPass: q(null) } }).draft;
    expect(d?.breakEvenTokensPerPass).toBeNull();
    expect(d?.pays).toBeNull();
  });
});
