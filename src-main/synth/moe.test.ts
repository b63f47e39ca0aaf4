import { describe, expect, it } from 'vitest';
import { ggmlTypeById } from '../shared/gguf/ggml-types.js';
import { DEFAULT_ROUTER_SKEW, expertRanks, routerRowScale } from '../shared/moe/routing-model.js';
import { planSynth, presetsOf, resolveShape } from './plan.js';
import { makeFiller } from './generate.js';
import { ggmlTypeByName } from '../shared/gguf/ggml-types.js';
const GGML_F32 = ggmlTypeByName('F32')!.id;
import { Xoshiro128 } from './prng.js';
import { buildGgufLayout } from '../shared/gguf/writer.js';
import { parseGgufHeader } from '../shared/gguf/reader.js';
import { buildModelView } from '../shared/gguf/model-view.js';
import { planMemory } from '../shared/plan/plan.js';
import { SynthInputError } from './shape.js';
import type { VocabKvs } from './vocab.js';

const VOCAB: VocabKvs = { name: 'test', path: 'test', kv: [], nVocab: 1000, hasChatTemplate: false };

const dimsOf = (p: ReturnType<typeof planSynth>) => Object.fromEntries(p.tensors.map((t) => [t.name, t.dims]));
const kvOf = (p: ReturnType<typeof planSynth>) => new Map(p.kv.map((k) => [k.key, 'value' in k ? k.value : undefined]));
const typeOf = (p: ReturnType<typeof planSynth>, name: string) => ggmlTypeById(p.tensors.find((t) => t.name === name)!.typeId)!.name;

describe('planSynth: mixtures of experts as the pinned llama.cpp loads them', () => {
  it('llama --experts: the Mixtral layout (router + one 3-D tensor per projection, n_ff wide)', () => {
    const p = planSynth({ arch: 'llama', preset: 'tiny', type: 'Q4_0', seed: 1, overrides: { nExpert: 4, nExpertUsed: 2 } }, VOCAB);
    const d = dimsOf(p);
    expect(d['blk.1.ffn_gate_inp.weight']).toEqual([256, 4]);
    expect(d['blk.1.ffn_gate_exps.weight']).toEqual([256, 512, 4]);
    expect(d['blk.1.ffn_up_exps.weight']).toEqual([256, 512, 4]);
    expect(d['blk.1.ffn_down_exps.weight']).toEqual([512, 256, 4]);
    expect(d['blk.1.ffn_gate.weight']).toBeUndefined();
    const kv = kvOf(p);
    expect(kv.get('llama.expert_count')).toBe(4);
    expect(kv.get('llama.expert_used_count')).toBe(2);
    expect(kv.get('llama.feed_forward_length')).toBe(512);
    expect(kv.has('llama.expert_feed_forward_length')).toBe(false);
    expect(kv.get('ramforge.synth.router_skew')).toBe(DEFAULT_ROUTER_SKEW);
    // The router stays F32 (llama.cpp's quantizer never quantizes it); the experts take the type.
    expect(typeOf(p, 'blk.0.ffn_gate_inp.weight')).toBe('F32');
    expect(typeOf(p, 'blk.0.ffn_up_exps.weight')).toBe('Q4_0');
    expect(p.tensors.length).toBe(1 + 10 * 2 + 2);
  });

  it('a dense llama is unchanged: no expert keys, no router', () => {
    const p = planSynth({ arch: 'llama', preset: 'tiny', type: 'Q4_0', seed: 1 }, VOCAB);
    expect(p.kv.some((k) => k.key.includes('expert') || k.key === 'ramforge.synth.router_skew')).toBe(false);
    expect(p.tensors.some((t) => t.name.includes('exps') || t.name.includes('gate_inp'))).toBe(false);
  });

  it('qwen3moe 30b-a3b: the Qwen3-30B-A3B shape (48 layers, 128 experts, 8 used, expert ff 768, head 128)', () => {
    const p = planSynth({ arch: 'qwen3moe', preset: '30b-a3b', type: 'Q4_0', seed: 1 }, { ...VOCAB, nVocab: 151936 });
    expect(p.shape).toMatchObject({ nLayer: 48, nEmbd: 2048, nHead: 32, nHeadKv: 4, headDim: 128, nExpert: 128, nExpertUsed: 8, nFfExp: 768 });
    const d = dimsOf(p);
    expect(d['blk.47.attn_q.weight']).toEqual([2048, 4096]);
    expect(d['blk.47.attn_k.weight']).toEqual([2048, 512]);
    expect(d['blk.47.attn_output.weight']).toEqual([4096, 2048]);
    expect(d['blk.47.attn_q_norm.weight']).toEqual([128]);
    expect(d['blk.47.attn_k_norm.weight']).toEqual([128]);
    expect(d['blk.47.ffn_gate_inp.weight']).toEqual([2048, 128]);
    expect(d['blk.47.ffn_gate_exps.weight']).toEqual([2048, 768, 128]);
    expect(d['blk.47.ffn_down_exps.weight']).toEqual([768, 2048, 128]);
    const kv = kvOf(p);
    expect(kv.get('qwen3moe.expert_count')).toBe(128);
    expect(kv.get('qwen3moe.expert_used_count')).toBe(8);
    expect(kv.get('qwen3moe.expert_feed_forward_length')).toBe(768);
    expect(kv.get('qwen3moe.attention.key_length')).toBe(128);
    expect(kv.get('qwen3moe.attention.value_length')).toBe(128);
    expect(kv.get('qwen3moe.rope.dimension_count')).toBe(128);
    // About 30.5 B parameters, as the real model.
    expect(p.params / 1e9).toBeGreaterThan(30);
    expect(p.params / 1e9).toBeLessThan(31);
  });

  it('qwen2moe: routed experts, a shared expert with its sigmoid gate, Q/K/V biases, a separate head', () => {
    const p = planSynth({ arch: 'qwen2moe', preset: 'tiny', type: 'Q8_0', seed: 1 }, VOCAB);
    const d = dimsOf(p);
    expect(d['blk.0.ffn_gate_inp_shexp.weight']).toEqual([256]);
    expect(d['blk.0.ffn_gate_shexp.weight']).toEqual([256, 512]);
    expect(d['blk.0.ffn_up_shexp.weight']).toEqual([256, 512]);
    expect(d['blk.0.ffn_down_shexp.weight']).toEqual([512, 256]);
    expect(d['blk.0.ffn_gate_exps.weight']).toEqual([256, 256, 8]);
    expect(d['blk.0.attn_q.bias']).toEqual([256]);
    expect(d['output.weight']).toEqual([256, 1000]);
    const kv = kvOf(p);
    expect(kv.get('qwen2moe.expert_shared_feed_forward_length')).toBe(512);
    expect(kv.get('qwen2moe.expert_feed_forward_length')).toBe(256);
    const tied = planSynth({ arch: 'qwen2moe', preset: 'tiny', type: 'Q8_0', seed: 1, overrides: { tieEmbeddings: true } }, VOCAB);
    expect(tied.tensors.map((t) => t.name)).toContain('output.weight');
  });

  it("skews each layer's router rows by the expert's popularity rank in that layer", () => {
    const p = planSynth({ arch: 'qwen3moe', preset: 'tiny', type: 'Q4_0', seed: 7, overrides: { routerSkew: 0.5 } }, VOCAB);
    for (const layer of [0, 1]) {
      const init = p.tensors.find((t) => t.name === `blk.${layer}.ffn_gate_inp.weight`)!.init;
      expect(init.kind).toBe('rows');
      if (init.kind !== 'rows') continue;
      expect(init.rowLength).toBe(256);
      const ranks = expertRanks(8, 7, layer);
      expect(init.rowScale).toEqual(ranks.map((r) => routerRowScale(r, 0.5)));
      expect(Math.max(...init.rowScale)).toBe(1);
    }
    expect(expertRanks(8, 7, 0)).not.toEqual(expertRanks(8, 7, 1));
    const uniform = planSynth({ arch: 'qwen3moe', preset: 'tiny', type: 'Q4_0', seed: 7, overrides: { routerSkew: 0 } }, VOCAB);
    const u = uniform.tensors.find((t) => t.name === 'blk.0.ffn_gate_inp.weight')!.init;
    expect(u.kind === 'rows' && u.rowScale.every((x) => x === 1)).toBe(true);
  });

  it('MoE presets and the options that cannot apply', () => {
    expect(presetsOf('qwen3moe')).toEqual(['tiny', 'small', '30b-a3b']);
    expect(presetsOf('qwen2moe')).toEqual(['tiny', 'small']);
    expect(presetsOf('llama')).not.toContain('30b-a3b');
    expect(() => resolveShape('llama', '30b-a3b')).toThrow(/no preset '30b-a3b'/);
    expect(() => resolveShape('qwen2', 'tiny', { nExpert: 4 })).toThrow(SynthInputError);
    expect(() => resolveShape('llama', 'tiny', { nExpertUsed: 2 })).toThrow(/need --experts/);
    expect(() => resolveShape('llama', 'tiny', { nExpert: 4, nExpertUsed: 5 })).toThrow(/1\.\.4/);
    expect(() => resolveShape('llama', 'tiny', { nExpert: 4, nFfExp: 256 })).toThrow(/--ff wide/);
    expect(() => resolveShape('qwen3moe', 'tiny', { nFfShexp: 256 })).toThrow(/no shared expert/);
    expect(() => resolveShape('qwen3moe', 'tiny', { routerSkew: -1 })).toThrow(/router skew/);
    expect(() => resolveShape('qwen3moe', 'tiny', { nExpert: 2000 })).toThrow(/1\.\.1024/);
    expect(resolveShape('qwen3moe', 'tiny', { nExpert: 16, nExpertUsed: 4 })).toMatchObject({ nExpert: 16, nExpertUsed: 4, nFfExp: 256 });
    expect(() => planSynth({ arch: 'qwen3moe', preset: 'tiny', type: 'Q4_K', seed: 1, overrides: { nFfExp: 320 } }, VOCAB)).toThrow(/expert feed-forward width 320/);
  });
});

describe('router generation', () => {
  it('writes each row at its own scale, across fill calls', () => {
    const rowLength = 512;
    const rowScale = [1, 0.5, 0.25, 0.125];
    const filler = makeFiller(GGML_F32, { kind: 'rows', std: 0.1, rowLength, rowScale }, new Xoshiro128(1, 2));
    const bytes = new Uint8Array(rowLength * rowScale.length * 4);
    // Two calls that split row 1 in the middle, as the chunked writer may.
    const cut = (rowLength + rowLength / 2) * 4;
    filler.fill(bytes.subarray(0, cut));
    filler.fill(bytes.subarray(cut));
    const f = new Float32Array(bytes.buffer);
    rowScale.forEach((s, r) => {
      const row = f.subarray(r * rowLength, (r + 1) * rowLength);
      const rms = Math.sqrt(row.reduce((a, x) => a + x * x, 0) / rowLength);
      expect(rms / (0.1 * s), `row ${r}`).toBeGreaterThan(0.85);
      expect(rms / (0.1 * s), `row ${r}`).toBeLessThan(1.15);
    });
  });
});

describe('the Qwen3-30B-A3B-shaped preset as inspect and plan see it', () => {
  it('header only: 128 experts of 8 used, about 1 GiB of routed experts per token; at 8 GiB an expert cache', () => {
    const p = planSynth({ arch: 'qwen3moe', preset: '30b-a3b', type: 'Q4_0', seed: 1 }, { ...VOCAB, nVocab: 151936 });
    const layout = buildGgufLayout(p.kv, p.tensors);
    const view = buildModelView([{ path: 'q.gguf', header: parseGgufHeader(layout.header, layout.fileSize) }]);
    const m = view.moe!;
    expect(m.expertCount).toBe(128);
    expect(m.expertUsedCount).toBe(8);
    expect(m.expertFeedForwardLength).toBe(768);
    expect(m.bytesPerExpert).toBe((3 * 2048 * 768 * 18) / 32);
    expect(m.routerSkew).toBe(DEFAULT_ROUTER_SKEW);
    // Routed experts: 8 × 48 × 2.53 MiB ≈ 0.95 GiB of a 16 GiB file.
    expect((48 * 8 * m.bytesPerExpert) / 2 ** 30).toBeCloseTo(0.95, 2);
    expect(view.headDim).toBe(128);
    const plan = planMemory(view, { ramBytes: 8 * 2 ** 30, ctx: 4096, diskBandwidthBytesPerS: 1.3 * 2 ** 30, readaheadBytes: 0 });
    expect(plan.verdict).toBe('out-of-core');
    expect(plan.moe!.cacheExpertsPerLayer).toBeGreaterThan(32);
    expect(plan.moe!.cacheExpertsPerLayer).toBeLessThan(128);
    expect(plan.quantities.bytesReadPerToken.value).toBeLessThan(48 * 8 * m.bytesPerExpert);
  });
});
