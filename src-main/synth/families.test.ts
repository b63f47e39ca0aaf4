import { describe, expect, it } from 'vitest';
import { ggmlTypeById } from '../shared/gguf/ggml-types.js';
import { planSynth, presetsOf, resolveShape } from './plan.js';
import { SynthInputError } from './shape.js';
import { missingTensors } from '../shared/gguf/arch-requirements.js';
import type { VocabKvs } from './vocab.js';

const VOCAB: VocabKvs = { name: 'test', path: 'test', kv: [], nVocab: 1000, hasChatTemplate: false };

const plan = (arch: string, type = 'Q4_0', preset = 'tiny') => planSynth({ arch, preset, type, seed: 1 }, VOCAB);
const dimsOf = (p: ReturnType<typeof planSynth>) => Object.fromEntries(p.tensors.map((t) => [t.name, t.dims]));
const kvOf = (p: ReturnType<typeof planSynth>) => new Map(p.kv.map((k) => [k.key, 'value' in k ? k.value : undefined]));
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

  it('MXFP4 needs experts; grouped routing needs experts that divide into the groups', () => {
    expect(() => plan('llama', 'MXFP4')).toThrow(SynthInputError);
    expect(() => planSynth({ arch: 'deepseek2', preset: 'tiny', type: 'Q4_0', seed: 1, overrides: { nExpert: 10 } }, VOCAB)).toThrow(/multiple of the 4 expert groups/);
  });

  it("inspect's required-tensor tables accept each family as written and name what a file lacks", () => {
    for (const [arch, type] of [['gpt-oss', 'MXFP4'], ['deepseek2', 'Q4_0'], ['glm4moe', 'Q4_0']] as const) {
      const p = plan(arch, type);
      const names = new Set(p.tensors.map((t) => t.name));
      expect(missingTensors(arch, p.shape.nLayer, (n) => names.has(n))).toEqual([]);
    }
    const gptOss = new Set(plan('gpt-oss', 'MXFP4').tensors.map((t) => t.name).filter((n) => n !== 'blk.1.attn_sinks.weight'));
    expect(missingTensors('gpt-oss', 2, (n) => gptOss.has(n))).toEqual(['blk.1.attn_sinks.weight']);
  });
});
