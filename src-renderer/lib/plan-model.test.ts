import { describe, expect, it } from 'vitest';
import { asTier, normalizePlan, remoteLines, tierTotals } from './plan-model.js';

describe('normalizePlan', () => {
  it('reads per-layer tiers and predictions', () => {
    const p = normalizePlan({
      verdict: { kind: 'out-of-core', text: '2 layers stream' },
      layers: [
        { index: 0, bytes: 10, tier: 'pinned' },
        { index: 1, bytes: 10, tier: 'streamed' },
        { index: 2, bytes: 10, tier: 'vram' },
      ],
      prediction: { bytes_per_token: 10, tok_s: 3.5 },
      kv_bytes: 4,
    });
    expect(p.verdict).toBe('out-of-core');
    expect(p.verdictText).toBe('2 layers stream');
    expect(p.layers.map((l) => l.tier)).toEqual(['pinned', 'streamed', 'vram']);
    expect(p.bytesPerToken).toBe(10);
    expect(p.tokS).toBe(3.5);
    expect(p.kvBytes).toBe(4);
    expect(tierTotals(p.layers)).toEqual({ vram: 10, remote: 0, pinned: 10, streamed: 10 });
  });
  it('builds layers from per-tier index lists', () => {
    const p = normalizePlan({ pinned_layers: [0, 1], streamed_layers: [2], layer_bytes: [5, 6, 7] });
    expect(p.layers).toEqual([
      { index: 0, bytes: 5, tier: 'pinned', streamedBytes: null },
      { index: 1, bytes: 6, tier: 'pinned', streamedBytes: null },
      { index: 2, bytes: 7, tier: 'streamed', streamedBytes: null },
    ]);
  });
  it('reads the floor, the stream window and the shape chosen for the cap', () => {
    const p = normalizePlan({
      input: { ctx: 2048, ubatch: 64, threads: 2 },
      layers: [{ index: 0, bytes: 100, kvBytes: 1, tier: 'streamed', streamedBytes: 40 }],
      quantities: { floorBytesPerToken: { value: 30, formula: 'w − (cap − nw)' }, headroomBytes: { value: 8, formula: 'h' } },
      stream: { tensors: ['blk.0.ffn_down.weight', 'blk.0.ffn_up.weight'], unitBytes: 20, windowBytes: 40, readaheadBytes: 0, headroomBytes: 8 },
    });
    expect(p.floorBytesPerToken).toBe(30);
    expect(p.headroomBytes).toBe(8);
    expect(p.stream).toEqual({ tensors: 2, unitBytes: 20, windowBytes: 40, headroomBytes: 8 });
    expect(p.shape).toEqual({ ctx: 2048, batch: 64, threads: 2 });
    expect(p.layers[0]!.streamedBytes).toBe(40);
  });
  it('counts only the streamed part of a partly streamed layer as streamed', () => {
    expect(
      tierTotals([
        { index: 0, bytes: 100, tier: 'streamed', streamedBytes: 40 },
        { index: 1, bytes: 100, tier: 'pinned', streamedBytes: 0 },
        { index: 2, bytes: 50, tier: 'streamed', streamedBytes: null },
      ]),
    ).toEqual({ vram: 0, remote: 0, pinned: 160, streamed: 90 });
  });
  it('maps tier synonyms', () => {
    expect(asTier('gpu')).toBe('vram');
    expect(asTier('stream')).toBe('streamed');
    expect(asTier('ram')).toBe('pinned');
  });
  it('is empty, not broken, for a missing plan', () => {
    const p = normalizePlan(undefined);
    expect(p.layers).toEqual([]);
    expect(p.bytesPerToken).toBeNull();
  });
});

describe('a plan with layers on RPC nodes', () => {
  it('reads the remote tier and its nodes, and counts their bytes apart from RAM', () => {
    const p = normalizePlan({
      layers: [
        { index: 0, bytes: 10, tier: 'pinned' },
        { index: 1, bytes: 20, tier: 'remote' },
      ],
      remote: { nodes: [{ endpoint: '10.0.0.2:50052', layers: [1], headBytes: 0, weightBytes: 20, kvBytes: 4, budgetBytes: 100, freeBytes: 140 }] },
    });
    expect(p.layers.map((l) => l.tier)).toEqual(['pinned', 'remote']);
    expect(tierTotals(p.layers)).toEqual({ vram: 0, remote: 20, pinned: 10, streamed: 0 });
    expect(remoteLines(p.remote!, (n) => `${n} B`)).toEqual(['10.0.0.2:50052: layers 1–1, 20 B + KV 4 B within 100 B (offers 140 B)']);
  });
});
