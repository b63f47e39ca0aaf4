import { describe, expect, it } from 'vitest';
import { firstDecodeSteps, traceHitRate, type TraceRouting } from './trace-routing.js';

// One layer, 4 experts, 1 used: the prompt routes to 0, decode steps to 1, 2, 1, 2, …
const trace: TraceRouting = {
  name: 't.csv',
  decodeSteps: 4,
  layers: [[{ phase: 0, experts: [0] }, { phase: 1, experts: [1] }, { phase: 1, experts: [2] }, { phase: 1, experts: [1] }, { phase: 1, experts: [2] }]],
};

describe('firstDecodeSteps', () => {
  it('keeps the prompt and the first decode steps, starting over past the end, so a short run is predicted as it warms', () => {
    const two = firstDecodeSteps(trace, 2);
    expect(two.decodeSteps).toBe(2);
    expect(two.layers[0]!.map((q) => q.experts[0])).toEqual([0, 1, 2]);
    const six = firstDecodeSteps(trace, 6);
    expect(six.layers[0]!.map((q) => q.experts[0])).toEqual([0, 1, 2, 1, 2, 1, 2]);
    // A cache of 2: the first two decode steps miss (cold), later ones hit.
    expect(traceHitRate(two, 2, 'lru', 4)).toBe(0);
    expect(traceHitRate(six, 2, 'lru', 4)).toBeCloseTo(4 / 6, 9);
    expect(traceHitRate(trace, 2, 'lru', 4)).toBeCloseTo(2 / 4, 9);
  });
});
