import { describe, expect, it } from 'vitest';
import { MIN_STREAMED_TENSOR_BYTES, budgetStream, capWithHeadroom, headroomBytes, selectStreamed, type WeightLayer } from './stream-select.js';

const MiB = 1024 ** 2;
// A llama-like layer: two norms, q/k/v/o, gate/up/down.
const layer = (i: number): WeightLayer => {
  const t = [
    { name: `blk.${i}.attn_norm.weight`, nbytes: 8 * 1024 },
    { name: `blk.${i}.attn_q.weight`, nbytes: 2.25 * MiB },
    { name: `blk.${i}.attn_k.weight`, nbytes: 0.5625 * MiB },
    { name: `blk.${i}.attn_v.weight`, nbytes: 0.5625 * MiB },
    { name: `blk.${i}.attn_output.weight`, nbytes: 2.25 * MiB },
    { name: `blk.${i}.ffn_norm.weight`, nbytes: 8 * 1024 },
    { name: `blk.${i}.ffn_gate.weight`, nbytes: 9 * MiB },
    { name: `blk.${i}.ffn_up.weight`, nbytes: 9 * MiB },
    { name: `blk.${i}.ffn_down.weight`, nbytes: 9 * MiB },
  ];
  return { bytes: t.reduce((s, x) => s + x.nbytes, 0), tensors: t };
};
const layers = Array.from({ length: 16 }, (_, i) => layer(i));
const total = layers.reduce((s, l) => s + l.bytes, 0);

describe('selectStreamed', () => {
  it('streams at least the target, never a norm, and spreads the bytes evenly over the layers', () => {
    for (const frac of [0.1, 0.3, 0.5, 0.8]) {
      const sel = selectStreamed(layers, frac * total);
      expect(sel.bytes).toBeGreaterThanOrEqual(frac * total);
      // Over by less than one tensor.
      expect(sel.bytes - frac * total).toBeLessThan(9 * MiB);
      expect(sel.tensors.some((n) => n.includes('norm'))).toBe(false);
      const per = sel.perLayer;
      expect(Math.max(...per) - Math.min(...per)).toBeLessThanOrEqual(9 * MiB + 1);
    }
  });

  it('whole tensors overshoot the target by less than the smallest streamable one', () => {
    for (let frac = 0.02; frac < 0.98; frac += 0.037) {
      const sel = selectStreamed(layers, frac * total);
      expect(sel.bytes).toBeGreaterThanOrEqual(frac * total);
      expect(sel.bytes - frac * total).toBeLessThan(0.5625 * MiB);
      expect(sel.bytes).toBe(sel.perLayer.reduce((a, b) => a + b, 0));
      expect(new Set(sel.tensors).size).toBe(sel.tensors.length);
    }
  });

  it('nothing to stream: empty; everything: every tensor big enough', () => {
    expect(selectStreamed(layers, 0).tensors).toEqual([]);
    const all = selectStreamed(layers, Infinity);
    expect(all.tensors.length).toBe(16 * 7);
    expect(all.tensors.every((n) => !n.includes('norm'))).toBe(true);
    expect(MIN_STREAMED_TENSOR_BYTES).toBeGreaterThan(8 * 1024);
  });
});

describe('budgetStream', () => {
  const base = { nonWeightBytes: 100 * MiB, persistentResidentBytes: 150 * MiB, layers, prefetchDepth: 1, readaheadBytes: 0 };

  it('fits when the layers fit beside the fixed costs and the headroom', () => {
    const cap = capWithHeadroom(250 * MiB + total);
    const b = budgetStream({ ...base, capBytes: cap });
    expect(b.verdict).toBe('fits');
    expect(b.selection.tensors).toEqual([]);
    expect(b.fullResidencyCapBytes).toBe(cap);
  });

  it('out of core: resident layer bytes + window + fixed + headroom stay within the cap, and the rest streams', () => {
    const cap = 400 * MiB;
    const b = budgetStream({ ...base, capBytes: cap });
    expect(b.verdict).toBe('out-of-core');
    expect(b.windowBytes).toBe(2 * 9 * MiB);
    expect(b.headroomBytes).toBe(headroomBytes(cap));
    expect(250 * MiB + b.residentLayerBytes + b.windowBytes + b.headroomBytes).toBeLessThanOrEqual(cap);
    expect(b.residentLayerBytes + b.selection.bytes).toBe(total);
  });

  it('near full residency only the attention projections stream: a smaller window, and what it gives back stays resident', () => {
    // 30 MiB must stream: more than k and v (18 MiB in all), less than the attention
    // projections (5.625 MiB a layer).
    const cap = capWithHeadroom(250 * MiB + total - 30 * MiB + 2 * 2.25 * MiB) + 1;
    const b = budgetStream({ ...base, capBytes: cap });
    expect(b.verdict).toBe('out-of-core');
    expect(b.unitBytes).toBe(2.25 * MiB);
    expect(b.windowBytes).toBe(2 * 2.25 * MiB);
    expect(b.selection.tensors.every((n) => n.includes('attn_'))).toBe(true);
    expect(b.selection.largestTensorBytes).toBeLessThanOrEqual(b.unitBytes);
    expect(250 * MiB + b.residentLayerBytes + b.windowBytes + b.headroomBytes).toBeLessThanOrEqual(cap);
    // Streaming feed-forward matrices instead would hold a 18 MiB window: 13.5 MiB more read.
    expect(b.selection.bytes).toBeLessThan(30 * MiB + 2.25 * MiB);
  });

  it('the window holds one layer\'s streamed units: read-ahead the setting at most, one at least', () => {
    const deep = { ...base, prefetchDepth: 3 };
    // Little streams: one feed-forward matrix in some layers, one unit read ahead.
    const high = budgetStream({ ...deep, capBytes: capWithHeadroom(250 * MiB + total - 100 * MiB) });
    expect(high.unitBytes).toBe(9 * MiB);
    expect(high.prefetchDepth).toBe(1);
    expect(high.windowBytes).toBe(2 * 9 * MiB);
    // About half streams: 3 units a layer, the window holds them (2 read ahead of the one in use).
    const mid = budgetStream({ ...deep, capBytes: 400 * MiB });
    expect(mid.prefetchDepth).toBe(2);
    expect(mid.windowBytes).toBe(3 * 9 * MiB);
    // Most streams: 4 units a layer, the setting holds.
    const low = budgetStream({ ...deep, capBytes: 300 * MiB });
    expect(low.prefetchDepth).toBe(3);
    expect(low.windowBytes).toBe(4 * 9 * MiB);
    for (const [b, cap] of [[mid, 400], [low, 300]] as const) expect(250 * MiB + b.residentLayerBytes + b.windowBytes + b.headroomBytes).toBeLessThanOrEqual(cap * MiB);
  });

  it('when the small tensors cannot carry what must stream, the unit is the largest tensor', () => {
    const b = budgetStream({ ...base, capBytes: 500 * MiB });
    expect(b.verdict).toBe('out-of-core');
    expect(b.unitBytes).toBe(9 * MiB);
    expect(b.selection.tensors.some((n) => n.includes('ffn_'))).toBe(true);
  });

  it('below the minimum: cannot-run, and the minimum is fixed costs + what cannot stream (the norms) + window + headroom', () => {
    const b = budgetStream({ ...base, capBytes: 260 * MiB });
    expect(b.verdict).toBe('cannot-run');
    expect(b.minimumCapBytes).toBe(capWithHeadroom(250 * MiB + 16 * 16 * 1024 + 18 * MiB));
    expect(budgetStream({ ...base, capBytes: b.minimumCapBytes }).verdict).toBe('out-of-core');
  });

  it('a model whose tensors are all too small to stream: the minimum is full residency, never a cap that cannot hold it', () => {
    // 22 layers 256 wide at Q8_0: every matrix under 256 KiB (a sweep case refused at 144 MiB naming 140 MiB).
    const narrow = Array.from({ length: 22 }, (_, i): WeightLayer => ({ bytes: 4 * 200 * 1024, tensors: [0, 1, 2, 3].map((k) => ({ name: `blk.${i}.t${k}.weight`, nbytes: 200 * 1024 })) }));
    const input = { ...base, layers: narrow };
    const b = budgetStream({ ...input, capBytes: 260 * MiB });
    expect(b.minimumCapBytes).toBe(b.fullResidencyCapBytes);
    expect(b.verdict).toBe('cannot-run');
    expect(budgetStream({ ...input, capBytes: b.minimumCapBytes }).verdict).toBe('fits');
  });

  it('streams no more than is streamable: a cap that leaves too little for the small tensors cannot run', () => {
    const mixed = layers.map((l) => ({ ...l, tensors: [...l.tensors, { name: 'small', nbytes: 100 * 1024 }], bytes: l.bytes + 100 * 1024 }));
    const b = budgetStream({ ...base, layers: mixed, capBytes: 300 * MiB });
    const below = budgetStream({ ...base, layers: mixed, capBytes: b.minimumCapBytes - 1024 * 1024 });
    expect(below.verdict).toBe('cannot-run');
    expect(budgetStream({ ...base, layers: mixed, capBytes: b.minimumCapBytes }).verdict).toBe('out-of-core');
  });
});
