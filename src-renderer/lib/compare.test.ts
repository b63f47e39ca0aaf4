import { describe, expect, it } from 'vitest';
import { compareRow, firstDivergence, tokensIdentical } from './compare.js';
import { normalizeReport } from './report-model.js';

const rep = (tokens: number[], extra: object = {}) =>
  normalizeReport({ schema_version: 1, generation: { token_ids: tokens, ttft_ms: 10, decode_tok_s: 2 }, residency: { policy: 'stream' }, ...extra });

describe('comparison', () => {
  it('says whether token sequences are identical', () => {
    expect(tokensIdentical([rep([1, 2, 3]), rep([1, 2, 3])])).toBe(true);
    expect(tokensIdentical([rep([1, 2, 3]), rep([1, 2, 4])])).toBe(false);
    expect(tokensIdentical([rep([1, 2]), rep([1, 2, 3])])).toBe(false);
  });
  it('cannot compare fewer than two runs, or a run without tokens', () => {
    expect(tokensIdentical([rep([1])])).toBeNull();
    expect(tokensIdentical([rep([1]), rep([])])).toBeNull();
  });
  it('finds the first diverging token', () => {
    expect(firstDivergence([rep([1, 2, 3]), rep([1, 9, 3])])).toBe(1);
    expect(firstDivergence([rep([1, 2]), rep([1, 2])])).toBeNull();
  });
  it('collects the figures of one run', () => {
    const row = compareRow(rep([1, 2], { cgroup: { peak_bytes: 77 } }), 'a');
    expect(row).toMatchObject({ label: 'a', policy: 'stream', tokS: 2, ttftMs: 10, peakBytes: 77, tokens: 2 });
  });
});
