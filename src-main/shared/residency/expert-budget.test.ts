import { describe, expect, it } from 'vitest';
import { budgetExperts, isExpertTensor } from './expert-budget.js';

const MiB = 1024 ** 2;
// 16 layers of 16 experts of 4 MiB beside 4 MiB of dense weights each (the Mixtral layout's proportions).
const denseLayers = Array.from({ length: 16 }, (_, i) => ({ bytes: 4 * MiB, tensors: [{ name: `blk.${i}.attn_q.weight`, nbytes: 4 * MiB }] }));
const base = { nonWeightBytes: 100 * MiB, persistentResidentBytes: 20 * MiB, denseLayers, expertLayerBytes: Array(16).fill(64 * MiB), experts: 16, expertsUsed: 2, prefetchDepth: 3, readaheadBytes: 0 };

describe('budgetExperts: the dense part first, the expert cache takes what is left', () => {
  it('names expert tensors, their biases and scales, and nothing else', () => {
    expect(['blk.3.ffn_up_exps.weight', 'blk.0.ffn_gate_up_exps.weight', 'blk.1.ffn_down_exps.bias', 'blk.2.ffn_gate_exps.scale'].every(isExpertTensor)).toBe(true);
    expect(['blk.3.ffn_up.weight', 'blk.3.ffn_up_shexp.weight', 'blk.3.ffn_gate_inp.weight', 'output.weight'].some(isExpertTensor)).toBe(false);
  });

  it('half the file: the dense part held whole, as many experts per layer as the rest holds beside the staging buffer', () => {
    const b = budgetExperts({ ...base, capBytes: 640 * MiB });
    expect(b.dense.verdict).toBe('fits');
    expect(b.stagingBytes).toBe(64 * MiB);
    // 640 − 100 − 20 − 64 dense − 64 staging − headroom ≈ 388 MiB: 6 experts × 16 layers × 4 MiB = 384 MiB.
    expect(b.slotsPerLayer).toBe(6);
    expect(b.cacheBytes).toBe(6 * 16 * 4 * MiB);
  });

  it('every expert fits: all slots, no staging', () => {
    const b = budgetExperts({ ...base, capBytes: 2048 * MiB });
    expect(b.slotsPerLayer).toBe(16);
    expect(b.stagingBytes).toBe(0);
  });

  it('too small for the dense part beside the routed experts: the cache keeps the routed ones and the dense part streams', () => {
    const b = budgetExperts({ ...base, capBytes: 300 * MiB });
    expect(b.slotsPerLayer).toBe(2);
    expect(b.dense.verdict).not.toBe('fits');
  });
});
