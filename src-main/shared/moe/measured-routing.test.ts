import { describe, expect, it } from 'vitest';
import { MIN_MEASURED_BATCHES, MIN_READ_AHEAD_NEEDED, measuredPopularity, mergeRouting, readAheadShare, type RoutingRecord } from './measured-routing.js';
import { lruHitRate } from './routing-model.js';

const rec = (batches: number, layers: number[][]): RoutingRecord => ({ experts: 4, used: 2, batches, layers: layers.map((uses, layer) => ({ layer, uses })) });

describe('measured routing', () => {
  it('ranks each layer by use, averages the shares over layers, scales to the experts a token uses', () => {
    // Layer 0 favours expert 3, layer 1 expert 0: by rank they are the same distribution.
    const m = measuredPopularity(rec(100, [[10, 20, 30, 140], [140, 30, 20, 10]]))!;
    expect(m.popularity.map((p) => +p.toFixed(6))).toEqual([1.4, 0.3, 0.2, 0.1]);
    expect(m.popularity.reduce((a, b) => a + b, 0)).toBeCloseTo(2, 9);
    expect(m.batches).toBe(100);
    // A skewed measurement predicts more hits than uniform routing for the same cache.
    expect(lruHitRate(m.popularity, 2)).toBeGreaterThan(lruHitRate([0.5, 0.5, 0.5, 0.5], 2));
  });

  it('too little seen, or nothing at all: no measurement', () => {
    expect(measuredPopularity(rec(MIN_MEASURED_BATCHES - 1, [[1, 1, 1, 1]]))).toBeNull();
    expect(measuredPopularity(rec(100, [[0, 0, 0, 0]]))).toBeNull();
    expect(measuredPopularity(rec(100, []))).toBeNull();
  });

  it('later runs add to earlier ones; a record of another shape replaces them', () => {
    const m = mergeRouting(rec(40, [[1, 2, 3, 4]]), rec(30, [[4, 3, 2, 1], [1, 1, 1, 1]]));
    expect(m.batches).toBe(70);
    expect(m.layers).toEqual([{ layer: 0, uses: [5, 5, 5, 5] }, { layer: 1, uses: [1, 1, 1, 1] }]);
    const other: RoutingRecord = { experts: 8, used: 2, batches: 5, layers: [] };
    expect(mergeRouting(rec(40, [[1, 2, 3, 4]]), other)).toBe(other);
  });
});

describe("read-ahead's share of the cache's reads", () => {
  const rec = (readAhead?: { needed: number; covered: number }): RoutingRecord => ({ experts: 4, used: 1, batches: 100, layers: [{ layer: 0, uses: [1, 1, 1, 1] }], ...(readAhead ? { readAhead } : {}) });

  it('adds up over runs, says nothing until enough reads were seen, and older records without it keep theirs', () => {
    expect(readAheadShare(rec())).toBeNull();
    expect(readAheadShare(rec({ needed: MIN_READ_AHEAD_NEEDED - 1, covered: 100 }))).toBeNull();
    const merged = mergeRouting(rec({ needed: 300, covered: 270 }), rec({ needed: 100, covered: 10 }));
    expect(merged.readAhead).toEqual({ needed: 400, covered: 280 });
    expect(readAheadShare(merged)).toBeCloseTo(0.7, 9);
    expect(mergeRouting(rec({ needed: 300, covered: 30 }), rec()).readAhead).toEqual({ needed: 300, covered: 30 });
    expect(mergeRouting(rec(), rec({ needed: 300, covered: 30 })).readAhead).toEqual({ needed: 300, covered: 30 });
  });
});
