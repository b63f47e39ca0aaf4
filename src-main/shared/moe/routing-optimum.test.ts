import { describe, expect, it } from 'vitest';
import { addRequests, routingOptimum, type LayerRequests } from './routing-optimum.js';
import { routingFigures } from '../report/routing-figures.js';
import type { RoutingResult } from '../worker-protocol.js';

/** One decode token per call on layers 0 and 1, two experts each. */
const taken = (a: [number, number], b: [number, number]) => ({
  selections: Int32Array.from([0, 1, 0, 0, 1, 0, 1, 0, 1, 1]),
  ids: Int32Array.from([...a, ...b]),
  weights: new Float32Array(0),
});

describe('the optimum per run', () => {
  it('turns what the tap took into per-layer requests and bytes the optimum and LRU read', () => {
    const reqs: LayerRequests = new Map();
    for (const [a, b] of [[[0, 1], [5, 6]], [[2, 3], [5, 6]], [[0, 1], [5, 7]], [[2, 3], [5, 6]]] as [[number, number], [number, number]][]) addRequests(reqs, taken(a, b), 2);
    expect(reqs.get(0)?.map((r) => r.experts)).toEqual([[0, 1], [2, 3], [0, 1], [2, 3]]);
    const o = routingOptimum(reqs, 3, new Map([[0, 100], [1, 10]]));
    // Cache of 3. Layer 0: 0 1, then 2 3 (keeping one of 0 1), then the other of 0 1, then the 3 or 2 it let go: 6 reads.
    // Layer 1: 5 6, then 7: 3 reads. Bytes per expert differ by layer.
    expect(o.optimalReadBytes).toBe(6 * 100 + 3 * 10);
    expect(o.lruReadBytes).toBeGreaterThanOrEqual(o.optimalReadBytes);
    expect(o.optimalDecodeReadBytes).toBe(o.optimalReadBytes);
    expect(o.decodeSteps).toBe(4);
  });

  it('keeps the log bounded, letting the oldest half go', () => {
    const reqs: LayerRequests = new Map();
    let forgotten = 0;
    for (let i = 0; i < 11; i++) forgotten += addRequests(reqs, taken([i, i + 1], [0, 1]), 2, 8);
    expect(reqs.get(0)?.length).toBeLessThanOrEqual(8);
    expect(reqs.get(0)?.[reqs.get(0)!.length - 1]?.experts).toEqual([10, 11]);
    expect(forgotten).toBe(2 * (11 - (reqs.get(0)?.length ?? 0)));
  });

  it('sets the cache reads against the optimum only when both cover the same run', () => {
    const r: RoutingResult = { trace: null, recordedTo: null, replacedSelections: 0, promptWraps: 0, decodeWraps: 0, droppedIds: 0, forgottenRequests: 0, optimum: { slotsPerLayer: 3, optimalReadBytes: 400, lruReadBytes: 600, optimalDecodeReadBytes: 200, lruDecodeReadBytes: 300, decodeSteps: 4 } };
    const experts = { read_bytes: 500 } as Parameters<typeof routingFigures>[1];
    expect(routingFigures(r, experts)?.read_over_optimal).toBe(1.25);
    expect(routingFigures(r, experts)?.optimal_decode_bytes_per_token).toBe(50);
    const bounded = routingFigures({ ...r, forgottenRequests: 10 }, experts);
    expect(bounded?.read_over_optimal).toBeNull();
    expect(bounded?.note).toMatch(/newest requests only/);
    expect(routingFigures({ ...r, optimum: null }, experts)?.note).toMatch(/no expert cache ran/);
    expect(routingFigures(undefined, experts)).toBeNull();
  });
});
