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

  it('below the minimum: cannot-run, and the minimum is fixed costs + window + headroom', () => {
    const b = budgetStream({ ...base, capBytes: 260 * MiB });
    expect(b.verdict).toBe('cannot-run');
    expect(b.minimumCapBytes).toBe(capWithHeadroom(250 * MiB + 18 * MiB));
    expect(budgetStream({ ...base, capBytes: b.minimumCapBytes }).verdict).toBe('out-of-core');
  });
});
