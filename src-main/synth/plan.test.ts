import { describe, expect, it } from 'vitest';
import { ggmlTypeById } from '../shared/gguf/ggml-types.js';
import { buildGgufLayout } from '../shared/gguf/writer.js';
import { planSynth, resolveShape } from './plan.js';
import { SynthInputError, WEIGHT_TYPES, type ArchName } from './shape.js';
import type { VocabKvs } from './vocab.js';
import { TOOLS_CHATML_TEMPLATE } from './chat-templates.js';

const VOCAB: VocabKvs = { name: 'test', path: 'test', kv: [], nVocab: 1000, hasChatTemplate: false };

function tensorBytes(dims: readonly number[], typeId: number): number {
  const t = ggmlTypeById(typeId)!;
  return (dims.reduce((a, b) => a * b, 1) / t.blockSize) * t.typeSize;
}

describe('planSynth: tensors exactly as llama.cpp loads them', () => {
  it('llama: token_embd, 9 tensors per layer, output_norm, output (unless tied)', () => {
    const p = planSynth({ arch: 'llama', preset: 'tiny', type: 'Q4_0', seed: 1 }, VOCAB);
    const s = p.shape;
    expect(s).toMatchObject({ nEmbd: 256, nLayer: 2, nHead: 4, nHeadKv: 2, nFf: 512, ropeDim: 64 });
    expect(p.tensors.length).toBe(1 + 9 * 2 + 2);
    const dims = Object.fromEntries(p.tensors.map((t) => [t.name, t.dims]));
    expect(dims['token_embd.weight']).toEqual([256, 1000]);
    expect(dims['blk.1.attn_q.weight']).toEqual([256, 256]);
    expect(dims['blk.1.attn_k.weight']).toEqual([256, 128]);
    expect(dims['blk.1.attn_v.weight']).toEqual([256, 128]);
    expect(dims['blk.1.attn_output.weight']).toEqual([256, 256]);
    expect(dims['blk.1.ffn_gate.weight']).toEqual([256, 512]);
    expect(dims['blk.1.ffn_up.weight']).toEqual([256, 512]);
    expect(dims['blk.1.ffn_down.weight']).toEqual([512, 256]);
    expect(dims['blk.0.attn_norm.weight']).toEqual([256]);
    expect(dims['output.weight']).toEqual([256, 1000]);
    const tied = planSynth({ arch: 'llama', preset: 'tiny', type: 'Q4_0', seed: 1, overrides: { tieEmbeddings: true } }, VOCAB);
    expect(tied.tensors.map((t) => t.name)).not.toContain('output.weight');
  });

  it('qwen2: Q/K/V biases, a separate head unless tied', () => {
    const p = planSynth({ arch: 'qwen2', preset: 'tiny', type: 'Q8_0', seed: 1 }, VOCAB);
    expect(p.tensors.length).toBe(1 + 12 * 2 + 2);
    const dims = Object.fromEntries(p.tensors.map((t) => [t.name, t.dims]));
    expect(dims['blk.0.attn_q.bias']).toEqual([256]);
    expect(dims['blk.0.attn_k.bias']).toEqual([128]);
    expect(dims['output.weight']).toEqual([256, 1000]);
    const tied = planSynth({ arch: 'qwen2', preset: 'tiny', type: 'Q8_0', seed: 1, overrides: { tieEmbeddings: true } }, VOCAB);
    expect(tied.tensors.length).toBe(1 + 12 * 2 + 1);
  });

  it('scales layers that write into the residual stream below the embedding', () => {
    const p = planSynth({ arch: 'llama', preset: 'small', type: 'F16', seed: 1 }, VOCAB);
    const std = (name: string) => {
      const t = p.tensors.find((x) => x.name === name)!;
      return t.init.kind === 'normal' ? t.init.std : NaN;
    };
    expect(std('token_embd.weight')).toBeCloseTo(2 / 32, 12);
    expect(std('blk.0.attn_q.weight')).toBeCloseTo(1 / 32, 12);
    expect(std('blk.0.attn_output.weight')).toBeCloseTo(2 / 32 / 32 / Math.sqrt(32), 12);
    expect(std('blk.0.ffn_down.weight')).toBeCloseTo(2 / 32 / Math.sqrt(2816) / Math.sqrt(32), 12);
    expect(std('output.weight')).toBeCloseTo(1 / 32, 12);
  });

  it('gptneox: fused QKV, biases everywhere, partial rotary, a separate head', () => {
    const p = planSynth({ arch: 'gptneox', preset: 'tiny', type: 'F16', seed: 1 }, VOCAB);
    expect(p.tensors.length).toBe(1 + 12 * 2 + 3);
    const dims = Object.fromEntries(p.tensors.map((t) => [t.name, t.dims]));
    expect(dims['blk.0.attn_qkv.weight']).toEqual([256, 768]);
    expect(dims['blk.0.attn_qkv.bias']).toEqual([768]);
    expect(dims['blk.0.ffn_up.weight']).toEqual([256, 1024]);
    expect(dims['blk.0.ffn_down.weight']).toEqual([1024, 256]);
    expect(dims['output_norm.bias']).toEqual([256]);
    expect(dims['output.weight']).toEqual([256, 1000]);
    expect(p.shape.ropeDim).toBe(16);
    const keys = p.kv.map((k) => k.key);
    expect(keys).toContain('gptneox.use_parallel_residual');
    expect(keys).toContain('gptneox.attention.layer_norm_epsilon');
  });

  for (const arch of ['llama', 'qwen2', 'gptneox'] as ArchName[]) {
    for (const type of WEIGHT_TYPES.filter((t) => t !== 'MXFP4')) {
      it(`${arch} ${type}: 1-D tensors F32, matrices ${type}, bytes add up`, () => {
        const p = planSynth({ arch, preset: 'tiny', type, seed: 1 }, VOCAB);
        let expected = 0;
        for (const t of p.tensors) {
          expect(ggmlTypeById(t.typeId)!.name).toBe(t.dims.length === 1 ? 'F32' : type);
          expected += tensorBytes(t.dims, t.typeId);
        }
        const layout = buildGgufLayout(p.kv, p.tensors);
        const payload = layout.tensors.reduce((s, t) => s + t.nbytes, 0);
        expect(payload).toBe(expected);
        expect(layout.fileSize).toBeGreaterThanOrEqual(layout.dataOffset + expected);
        expect(layout.fileSize - layout.dataOffset - expected).toBeLessThan(32 * p.tensors.length);
        expect(p.params).toBe(p.tensors.reduce((s, t) => s + t.dims.reduce((a, b) => a * b, 1), 0));
      });
    }
  }

  it('writes the hparams llama.cpp requires, with the types it reads', () => {
    const p = planSynth({ arch: 'llama', preset: 'small', type: 'Q4_K', seed: 5 }, VOCAB);
    const kv = new Map(p.kv.map((k) => [k.key, k]));
    for (const key of ['llama.context_length', 'llama.embedding_length', 'llama.block_count', 'llama.feed_forward_length', 'llama.attention.head_count', 'llama.attention.head_count_kv', 'llama.rope.dimension_count', 'general.file_type']) {
      expect(kv.get(key)).toMatchObject({ type: 4 }); // UINT32
    }
    expect(kv.get('llama.attention.layer_norm_rms_epsilon')).toMatchObject({ type: 6, value: 1e-5 });
    expect(kv.get('general.architecture')).toMatchObject({ type: 8, value: 'llama' });
    expect(kv.get('general.file_type')).toMatchObject({ value: 14 });
    expect(kv.get('tokenizer.chat_template')).toMatchObject({ type: 8 });
  });

  it('chatTemplate: false writes no chat template, neither the vocab\'s own nor a fallback (a base model)', () => {
    const withOwn: VocabKvs = { ...VOCAB, kv: [{ key: 'tokenizer.chat_template', raw: new Uint8Array(12) }], hasChatTemplate: true };
    for (const vocab of [VOCAB, withOwn]) {
      const base = planSynth({ arch: 'llama', preset: 'tiny', type: 'Q4_0', seed: 1, chatTemplate: false }, vocab);
      expect(base.kv.some((k) => k.key === 'tokenizer.chat_template')).toBe(false);
      const chat = planSynth({ arch: 'llama', preset: 'tiny', type: 'Q4_0', seed: 1 }, vocab);
      expect(chat.kv.filter((k) => k.key === 'tokenizer.chat_template')).toHaveLength(1);
    }
  });

  it('toolTemplate writes the tool-calling ChatML template in place of the vocab\'s own or a fallback', () => {
    const withOwn: VocabKvs = { ...VOCAB, kv: [{ key: 'tokenizer.chat_template', raw: new Uint8Array(12) }], hasChatTemplate: true };
    for (const vocab of [VOCAB, withOwn]) {
      const t = planSynth({ arch: 'qwen2', preset: 'tiny', type: 'Q4_0', seed: 1, toolTemplate: true }, vocab).kv.filter((k) => k.key === 'tokenizer.chat_template');
      expect(t).toHaveLength(1);
      expect(t[0]).toMatchObject({ value: TOOLS_CHATML_TEMPLATE });
    }
  });

  it('chatTemplateText writes the caller\'s own template in place of the vocab\'s own or a fallback', () => {
    const withOwn: VocabKvs = { ...VOCAB, kv: [{ key: 'tokenizer.chat_template', raw: new Uint8Array(12) }], hasChatTemplate: true };
    for (const vocab of [VOCAB, withOwn]) {
      const t = planSynth({ arch: 'qwen2', preset: 'tiny', type: 'Q4_0', seed: 1, chatTemplateText: '{{ messages[0].content }}' }, vocab).kv.filter((k) => k.key === 'tokenizer.chat_template');
      expect(t).toHaveLength(1);
      expect(t[0]).toMatchObject({ value: '{{ messages[0].content }}' });
    }
  });

  it('applies overrides and rejects shapes that cannot exist', () => {
    const s = resolveShape('llama', 'small', { nLayer: 3, nEmbd: 512, nFf: 1024 });
    expect(s).toMatchObject({ nLayer: 3, nEmbd: 512, nFf: 1024, nHead: 8, nHeadKv: 2, ropeDim: 64 });
    expect(resolveShape('llama', 'tiny', { nEmbd: 320 })).toMatchObject({ nHead: 5, nHeadKv: 1 });
    expect(() => resolveShape('llama', 'tiny', { nHead: 3 })).toThrow(SynthInputError);
    expect(() => resolveShape('llama', 'tiny', { nHeadKv: 3 })).toThrow(/multiple of the KV head count/);
    expect(() => resolveShape('gptneox', 'tiny', { nHeadKv: 2 })).toThrow(/grouped-query/);
    expect(() => resolveShape('llama', 'tiny', { nLayer: 0 })).toThrow(/positive/);
    expect(() => planSynth({ arch: 'llama', preset: 'tiny', type: 'Q4_K', seed: 1, overrides: { nEmbd: 384 } }, VOCAB)).toThrow(/multiple of 256/);
    expect(() => planSynth({ arch: 'mamba', preset: 'tiny', type: 'Q4_0', seed: 1 }, VOCAB)).toThrow(/unknown architecture/);
    expect(() => planSynth({ arch: 'llama', preset: 'huge', type: 'Q4_0', seed: 1 }, VOCAB)).toThrow(/unknown preset/);
    expect(() => planSynth({ arch: 'llama', preset: 'tiny', type: 'Q5_0', seed: 1 }, VOCAB)).toThrow(/unsupported type/);
    expect(() => planSynth({ arch: 'llama', preset: 'tiny', type: 'Q4_0', seed: -1 }, VOCAB)).toThrow(/seed/);
  });
});
