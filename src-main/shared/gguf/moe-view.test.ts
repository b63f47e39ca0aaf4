import { describe, expect, it } from 'vitest';
import { parseGgufHeader } from './reader.js';
import { buildModelView } from './model-view.js';
import { buildGguf } from './build-gguf.test-util.js';
import { tinySpec, type TinyOptions } from './tiny-models.test-util.js';

const view = (o: TinyOptions) => {
  const { bytes } = buildGguf(tinySpec(o));
  return buildModelView([{ path: 'm.gguf', header: parseGgufHeader(bytes, bytes.length) }]);
};

describe('the MoE view of a model', () => {
  it('a dense model has none', () => {
    expect(view({ arch: 'llama', layers: 2 }).moe).toBeNull();
  });

  it('experts per layer, used per token, bytes per expert, dense and active bytes (Mixtral layout, F32)', () => {
    const E = 32;
    const F = 64;
    const X = 8;
    const v = view({ arch: 'llama', layers: 3, embd: E, ff: F, vocab: 16, experts: { count: X, used: 2, skew: 0.5 } });
    const m = v.moe!;
    expect(m.expertCount).toBe(X);
    expect(m.expertUsedCount).toBe(2);
    expect(m.expertSharedCount).toBe(0);
    expect(m.expertFeedForwardLength).toBe(F);
    expect(m.layers.map((l) => l.index)).toEqual([0, 1, 2]);
    expect(m.layers[0]!.expertTensors).toEqual(['blk.0.ffn_gate_exps.weight', 'blk.0.ffn_down_exps.weight', 'blk.0.ffn_up_exps.weight']);
    // One expert: its gate, up and down slices, F32.
    expect(m.bytesPerExpert).toBe(3 * E * F * 4);
    expect(m.expertBytes).toBe(3 * X * 3 * E * F * 4);
    expect(m.denseBytes).toBe(v.tensorBytes - m.expertBytes);
    // token_embd is one row per token beside a separate output head.
    const embd = v.persistent.tensors.find((t) => t.name === 'token_embd.weight')!.nbytes;
    expect(m.activeBytesPerToken).toBe(m.denseBytes - embd + 3 * 2 * m.bytesPerExpert);
    expect(m.routerSkew).toBe(0.5);
  });

  it('shared experts are part of the dense bytes; a missing expert_used_count leaves the active bytes unknown', () => {
    const v = view({ arch: 'llama', layers: 2, experts: { count: 4, sharedFf: 32 } });
    const m = v.moe!;
    expect(m.expertSharedCount).toBe(1);
    expect(m.sharedExpertBytes).toBe(2 * 3 * 32 * 32 * 4);
    expect(m.expertUsedCount).toBeNull();
    expect(m.activeBytesPerToken).toBeNull();
    expect(m.routerSkew).toBeNull();
  });
});
