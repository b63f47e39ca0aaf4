import { describe, expect, it } from 'vitest';
import { runFuzz } from './fuzz.test-util.js';

describe('GGUF reader fuzz (quick; scripts/fuzz-gguf.mjs runs ≥ 100 000)', () => {
  it('2 000 mutated headers: only GgufError is ever thrown, and every parse is fast', () => {
    const r = runFuzz(2000, 0xc0ffee, 1000);
    expect(r.crashes).toEqual([]);
    expect(r.parsed + r.rejected).toBe(2000);
    // The mutations must actually hit the checks, or the test proves nothing.
    expect(r.rejected).toBeGreaterThan(500);
    expect(Object.keys(r.codes).length).toBeGreaterThan(8);
    expect(r.slowestMs).toBeLessThan(1000);
  });
});
