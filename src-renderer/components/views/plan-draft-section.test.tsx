// The plan view's draft section from a real plan's draft JSON (MemoryPlan.draft) read by the
// renderer's plan model: cost to the model, break-even, the verdict and its reason.
import { describe, expect, it } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { normalizePlan } from '../../lib/plan-model.js';
import { PlanDraftSection } from './PlanDraftSection.js';

const MiB = 1024 * 1024;
const q = (value: number | null, formula = 'f') => ({ value, formula });
const planWithDraft = (pays: boolean) =>
  normalizePlan({
    layers: [],
    draft: {
      path: '/m/d.gguf',
      sharedBytes: q(40 * MiB),
      ownWeightBytes: q(0),
      overheadBytes: q(26 * MiB),
      residentCostBytes: q(12 * MiB, 'target layer weights resident without the draft − with it'),
      extraReadPerPassBytes: q(12 * MiB),
      breakEvenTokensPerPass: q(1.14),
      pays,
      reason: pays ? 'the draft pays off once a pass yields more than 1.14 tokens (at most 9 with 8 drafted)' : 'each verify pass would read 3.2 GiB, 12.00× a pass without the draft',
    },
  });
const kpi = (html: string, id: string) => new RegExp(`data-testid="${id}"[^>]*>([^<]*)<`).exec(html)?.[1];

describe("the plan view's draft section", () => {
  it('what the draft costs the model, the break-even tokens per pass, that it can pay off and why', () => {
    const html = renderToStaticMarkup(<PlanDraftSection draft={planWithDraft(true).draft!} />);
    expect(kpi(html, 'plan-draft-cost')).toBe('12.0 MiB');
    expect(kpi(html, 'plan-draft-break-even')).toBe('1.14 tok/pass');
    expect(kpi(html, 'plan-draft-shared')).toBe('40.0 MiB');
    expect(html).toContain('data-pays="true"');
    expect(kpi(html, 'plan-draft-pays')).toBe('can pay off');
    expect(kpi(html, 'plan-draft-reason')).toMatch(/pays off once a pass yields more than 1.14 tokens/);
    expect(html).toContain('residentCostBytes: target layer weights resident without the draft − with it');
  });

  it("a draft that cannot pay off says so, with the planner's reason", () => {
    const html = renderToStaticMarkup(<PlanDraftSection draft={planWithDraft(false).draft!} />);
    expect(html).toContain('data-pays="false"');
    expect(kpi(html, 'plan-draft-pays')).toBe('does not pay off');
    expect(kpi(html, 'plan-draft-reason')).toMatch(/12.00× a pass without the draft/);
  });
});
