import { describe, expect, it } from 'vitest';
import { ggmlTypeById } from '../shared/gguf/ggml-types.js';
import { planSynth, presetsOf, resolveShape } from './plan.js';
import { SynthInputError } from './shape.js';
import { missingTensors } from '../shared/gguf/arch-requirements.js';
import type { VocabKvs } from './vocab.js';
import type { WriterArray } from '../shared/gguf/writer-types.js';
import { buildGgufLayout } from '../shared/gguf/writer.js';
import { parseGgufHeader } from '../shared/gguf/reader.js';
import { buildModelView } from '../shared/gguf/model-view.js';
import { planMemory } from '../shared/plan/plan.js';

const VOCAB: VocabKvs = { name: 'test', path: 'test', kv: [], nVocab: 1000, hasChatTemplate: false };

const plan = (arch: string, type = 'Q4_0', preset = 'tiny') => planSynth({ arch, preset, type, seed: 1 }, VOCAB);
const dimsOf = (p: ReturnType<typeof planSynth>) => Object.fromEntries(p.tensors.map((t) => [t.name, t.dims]));
const kvOf = (p: ReturnType<typeof planSynth>) => new Map(p.kv.map((k) => [k.key, 'value' in k ? k.value : undefined]));
const itemsOf = (v: unknown) => Array.from((v as WriterArray).items);
const typeOf = (p: ReturnType<typeof planSynth>, name: string) => ggmlTypeById(p.tensors.find((t) => t.name === name)!.typeId)!.name;

describe('synth writes the MoE families as the pinned llama.cpp loads them', () => {
  it('gpt-oss: MXFP4 experts, Q8_0 elsewhere, per-expert biases and attention sinks in F32', () => {
    const p = plan('gpt-oss', 'MXFP4');
    const d = dimsOf(p);
    expect(d['blk.0.ffn_gate_exps.weight']).toEqual([256, 256, 8]);
    expect(d['blk.0.ffn_gate_exps.bias']).toEqual([256, 8]);
    expect(d['blk.0.ffn_down_exps.bias']).toEqual([256, 8]);
    expect(d['blk.0.attn_sinks.weight']).toEqual([8]);
    expect(d['blk.0.attn_q.weight']).toEqual([256, 8 * 64]);
    expect(d['blk.0.post_attention_norm.weight']).toEqual([256]);
    expect(d['blk.0.ffn_norm.weight']).toBeUndefined();
    for (const proj of ['gate', 'up', 'down']) expect(typeOf(p, `blk.1.ffn_${proj}_exps.weight`)).toBe('MXFP4');
    expect(typeOf(p, 'blk.1.ffn_up_exps.bias')).toBe('F32');
    expect(typeOf(p, 'blk.1.ffn_gate_inp.weight')).toBe('F32');
    expect(typeOf(p, 'blk.1.attn_q.weight')).toBe('Q8_0');
    expect(typeOf(p, 'token_embd.weight')).toBe('Q8_0');
    const kv = kvOf(p);
    expect(kv.get('general.architecture')).toBe('gpt-oss');
    expect(kv.get('general.file_type')).toBe(38);
    expect(kv.get('gpt-oss.attention.sliding_window')).toBe(64);
    expect(kv.get('gpt-oss.expert_feed_forward_length')).toBe(256);
    expect(kv.get('gpt-oss.attention.key_length')).toBe(64);
  });

  it('gpt-oss 20b and 120b: the real shapes', () => {
    const s20 = resolveShape('gpt-oss', '20b');
    expect([s20.nLayer, s20.nEmbd, s20.nExpert, s20.nExpertUsed, s20.nFfExp, s20.nHead, s20.headDim]).toEqual([24, 2880, 32, 4, 2880, 64, 64]);
    const s120 = resolveShape('gpt-oss', '120b');
    expect([s120.nLayer, s120.nExpert]).toEqual([36, 128]);
    expect(presetsOf('gpt-oss')).toEqual(['tiny', 'small', '20b', '120b']);
  });

  it('deepseek2: MLA, a leading dense layer, shared experts, grouped sigmoid routing', () => {
    const p = plan('deepseek2');
    const d = dimsOf(p);
    expect(d['blk.0.ffn_gate.weight']).toEqual([256, 768]);
    expect(d['blk.0.ffn_gate_exps.weight']).toBeUndefined();
    expect(d['blk.1.ffn_gate_exps.weight']).toEqual([256, 256, 16]);
    expect(d['blk.1.ffn_gate_shexp.weight']).toEqual([256, 256]);
    expect(d['blk.1.exp_probs_b.bias']).toEqual([16]);
    expect(d['blk.1.attn_q_a.weight']).toEqual([256, 256]);
    expect(d['blk.1.attn_q_b.weight']).toEqual([256, 4 * 96]);
    expect(d['blk.1.attn_kv_a_mqa.weight']).toEqual([256, 256 + 32]);
    expect(d['blk.1.attn_k_b.weight']).toEqual([64, 256, 4]);
    expect(d['blk.1.attn_v_b.weight']).toEqual([256, 64, 4]);
    const kv = kvOf(p);
    expect(kv.get('deepseek2.leading_dense_block_count')).toBe(1);
    expect(kv.get('deepseek2.expert_shared_count')).toBe(1);
    expect(kv.get('deepseek2.expert_group_count')).toBe(4);
    expect(kv.get('deepseek2.expert_group_used_count')).toBe(2);
    expect(kv.get('deepseek2.expert_gating_func')).toBe(2);
    expect(kv.get('deepseek2.attention.key_length')).toBe(256 + 32);
    expect(kv.get('deepseek2.attention.key_length_mla')).toBe(96);
    expect(kv.get('deepseek2.rope.dimension_count')).toBe(32);
    expect(kv.get('deepseek2.attention.head_count_kv')).toBe(1);
  });

  it('deepseek2 v2-lite has a plain Q and softmax routing; v3 keeps the real widths on few layers', () => {
    const lite = dimsOf(plan('deepseek2', 'Q4_0', 'v2-lite'));
    expect(lite['blk.1.attn_q.weight']).toEqual([2048, 16 * 192]);
    expect(lite['blk.1.attn_q_a.weight']).toBeUndefined();
    expect(lite['blk.1.ffn_up_shexp.weight']).toEqual([2048, 2 * 1408]);
    const v3 = resolveShape('deepseek2', 'v3');
    expect([v3.nEmbd, v3.nExpert, v3.nExpertUsed, v3.nExpertShared, v3.nFfExp, v3.nExpertGroups]).toEqual([7168, 256, 8, 1, 2048, 8]);
  });

  it('glm4moe: Q/K/V biases, half-roped heads, a leading dense layer, a shared expert and exp_probs_b', () => {
    const p = plan('glm4moe');
    const d = dimsOf(p);
    expect(d['blk.0.ffn_up.weight']).toEqual([256, 768]);
    expect(d['blk.2.ffn_up_exps.weight']).toEqual([256, 256, 8]);
    expect(d['blk.2.ffn_up_shexp.weight']).toEqual([256, 256]);
    expect(d['blk.2.exp_probs_b.bias']).toEqual([8]);
    expect(d['blk.2.attn_k.bias']).toEqual([2 * 64]);
    const kv = kvOf(p);
    expect(kv.get('glm4moe.rope.dimension_count')).toBe(32);
    expect(kv.get('glm4moe.leading_dense_block_count')).toBe(1);
    expect(resolveShape('glm4moe', 'air').nHead).toBe(96);
  });

  it('qwen35moe: delta-net layers with one full attention layer in four, fused gate_up experts, a shared expert', () => {
    const p = plan('qwen35moe');
    const d = dimsOf(p);
    // Layers 0-2 a gated delta net (2 key heads, 4 value heads of 64), layer 3 gated full attention.
    expect(d['blk.0.attn_qkv.weight']).toEqual([256, 2 * 2 * 64 + 4 * 64]);
    expect(d['blk.0.attn_gate.weight']).toEqual([256, 4 * 64]);
    expect(d['blk.0.ssm_conv1d.weight']).toEqual([4, 2 * 2 * 64 + 4 * 64]);
    expect(d['blk.0.ssm_a']).toEqual([4]);
    expect(d['blk.0.attn_q.weight']).toBeUndefined();
    expect(d['blk.3.attn_q.weight']).toEqual([256, 2 * 4 * 64]);
    expect(d['blk.3.attn_qkv.weight']).toBeUndefined();
    expect(d['blk.3.ffn_gate_up_exps.weight']).toEqual([256, 2 * 256, 8]);
    expect(d['blk.3.ffn_gate_exps.weight']).toBeUndefined();
    expect(d['blk.3.ffn_down_exps.weight']).toEqual([256, 256, 8]);
    expect(d['blk.3.ffn_gate_inp_shexp.weight']).toEqual([256]);
    expect(typeOf(p, 'blk.0.ssm_conv1d.weight')).toBe('F32');
    expect(typeOf(p, 'blk.0.ffn_gate_up_exps.weight')).toBe('Q4_0');
    expect(p.tensors.find((t) => t.name === 'blk.0.ssm_a')!.init).toEqual({ kind: 'const', value: -1 });
    const kv = kvOf(p);
    expect(kv.get('qwen35moe.full_attention_interval')).toBe(4);
    expect(kv.get('qwen35moe.ssm.group_count')).toBe(2);
    expect(kv.get('qwen35moe.ssm.time_step_rank')).toBe(4);
    expect(kv.get('qwen35moe.ssm.inner_size')).toBe(4 * 64);
    expect(kv.get('qwen35moe.rope.dimension_count')).toBe(16);
    expect(itemsOf(kv.get('qwen35moe.rope.dimension_sections'))).toEqual([3, 3, 2, 0]);
    expect(kv.get('qwen35moe.expert_shared_feed_forward_length')).toBe(256);
    const real = resolveShape('qwen35moe', '35b-a3b');
    expect([real.nLayer, real.nEmbd, real.nExpert, real.nExpertUsed, real.nFfExp, real.nFfShexp, real.headDim, real.linearAttn?.nVHeads]).toEqual([40, 2048, 256, 8, 512, 512, 256, 32]);
  });

  it('gemma4: sliding and full layers with heads of their own, a dense MLP beside fused gate_up experts, per-expert scales', () => {
    const p = plan('gemma4');
    const d = dimsOf(p);
    expect(d['blk.0.attn_q.weight']).toEqual([256, 4 * 64]);
    expect(d['blk.0.attn_k.weight']).toEqual([256, 2 * 64]);
    expect(d['blk.2.attn_q.weight']).toEqual([256, 4 * 128]);
    expect(d['blk.2.attn_k.weight']).toEqual([256, 1 * 128]);
    expect(d['rope_freqs.weight']).toEqual([64]);
    expect(d['blk.1.ffn_gate.weight']).toEqual([256, 512]);
    expect(d['blk.1.ffn_gate_up_exps.weight']).toEqual([256, 2 * 256, 8]);
    expect(d['blk.1.ffn_down_exps.scale']).toEqual([8]);
    expect(d['blk.1.ffn_gate_inp.scale']).toEqual([256]);
    expect(p.tensors.find((t) => t.name === 'blk.1.ffn_down_exps.scale')!.init).toEqual({ kind: 'normal', std: 0.25, mean: 1 });
    const kv = kvOf(p);
    expect(itemsOf(kv.get('gemma4.attention.sliding_window_pattern'))).toEqual([true, true, false]);
    expect(itemsOf(kv.get('gemma4.attention.head_count_kv'))).toEqual([2, 2, 1]);
    expect(p.kv.filter((k) => k.key === 'gemma4.attention.head_count_kv')).toHaveLength(1);
    expect(kv.get('gemma4.attention.key_length')).toBe(128);
    expect(kv.get('gemma4.attention.key_length_swa')).toBe(64);
    expect(kv.get('gemma4.embedding_length_per_layer_input')).toBe(0);
    const real = resolveShape('gemma4', '26b-a4b');
    expect([real.nLayer, real.nEmbd, real.nExpert, real.nExpertUsed, real.nFfExp, real.nFf, real.iswa?.headDimFull, real.tieEmbeddings]).toEqual([30, 2816, 128, 8, 704, 2112, 512, true]);
    expect(presetsOf('gemma4')).toEqual(['tiny', 'small', '26b-a4b']);
  });

  it('MXFP4 needs experts; grouped routing needs experts that divide into the groups', () => {
    expect(() => plan('llama', 'MXFP4')).toThrow(SynthInputError);
    expect(() => planSynth({ arch: 'deepseek2', preset: 'tiny', type: 'Q4_0', seed: 1, overrides: { nExpert: 10 } }, VOCAB)).toThrow(/multiple of the 4 expert groups/);
  });

  it("inspect's required-tensor tables accept each family as written and name what a file lacks", () => {
    for (const [arch, type] of [['gpt-oss', 'MXFP4'], ['deepseek2', 'Q4_0'], ['glm4moe', 'Q4_0'], ['qwen35moe', 'Q4_0'], ['gemma4', 'Q4_0']] as const) {
      const p = plan(arch, type);
      const names = new Set(p.tensors.map((t) => t.name));
      expect(missingTensors(arch, p.shape.nLayer, (n) => names.has(n))).toEqual([]);
    }
    const gptOss = new Set(plan('gpt-oss', 'MXFP4').tensors.map((t) => t.name).filter((n) => n !== 'blk.1.attn_sinks.weight'));
    expect(missingTensors('gpt-oss', 2, (n) => gptOss.has(n))).toEqual(['blk.1.attn_sinks.weight']);
    const qwen35 = new Set(plan('qwen35moe').tensors.map((t) => t.name).filter((n) => n !== 'blk.2.ffn_gate_up_exps.weight'));
    expect(missingTensors('qwen35moe', 4, (n) => qwen35.has(n))).toEqual(['blk.2.ffn_gate_up_exps.weight or blk.2.ffn_gate_exps.weight', 'blk.2.ffn_gate_up_exps.weight or blk.2.ffn_up_exps.weight']);
  });
});

describe('the Qwen3.5-35B-A3B and Gemma 4 26B-A4B shapes as inspect and plan see them (header only)', () => {
  const viewOf = (arch: string, preset: string, nVocab: number) => {
    const p = planSynth({ arch, preset, type: 'Q4_0', seed: 1 }, { ...VOCAB, nVocab });
    const layout = buildGgufLayout(p.kv, p.tensors);
    return buildModelView([{ path: 'm.gguf', header: parseGgufHeader(layout.header, layout.fileSize) }]);
  };

  it('fused gate_up experts: the expert width is half the fused tensor, every layer an MoE layer, an expert cache at 8 GiB', () => {
    for (const [arch, preset, nVocab, layers, experts, used, ff] of [
      ['qwen35moe', '35b-a3b', 248320, 40, 256, 8, 512],
      ['gemma4', '26b-a4b', 262144, 30, 128, 8, 704],
    ] as const) {
      const view = viewOf(arch, preset, nVocab);
      const m = view.moe!;
      expect([m.expertCount, m.expertUsedCount, m.expertFeedForwardLength, m.layers.length], arch).toEqual([experts, used, ff, layers]);
      // gate_up (2 × ff rows) and down, Q4_0: 18 bytes per 32 weights. Gemma 4's per-expert
      // scales are read by expert id, not sliced: they stay with the dense part.
      expect(m.bytesPerExpert, arch).toBe((3 * view.embeddingLength! * ff * 18) / 32);
      const plan = planMemory(view, { ramBytes: 8 * 2 ** 30, ctx: 4096, diskBandwidthBytesPerS: 1.3 * 2 ** 30, readaheadBytes: 0 });
      expect(plan.verdict, arch).toBe('out-of-core');
      expect(plan.moe!.cacheExpertsPerLayer, arch).toBeGreaterThanOrEqual(used);
      expect(plan.moe!.cacheExpertsPerLayer, arch).toBeLessThan(experts);
    }
  });
});
