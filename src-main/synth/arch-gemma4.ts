// gemma4 (src/models/gemma4.cpp, Gemma 4 26B-A4B): interleaved attention — every fullEvery-th
// layer full attention with wider heads and fewer KV heads (proportional RoPE through
// rope_freqs), the others a sliding window with heads of their own (attention.*_swa keys) — RMS
// norms before and after attention and FFN, and on every layer a dense GeGLU MLP (ffn_gate/up/
// down, the "shared expert" of the reference code) beside routed experts: gate and up fused into
// ffn_gate_up_exps as the real files hold them, a router reading its own normed and scaled input
// (ffn_gate_inp.scale), and a per-expert output scale ffn_down_exps.scale that the graph picks by
// the selected experts' ids. Embeddings are tied and the logits soft-capped.
import { GgufValueType } from '../shared/gguf/ggml-types.js';
import type { TypedKv } from '../shared/gguf/writer-types.js';
import { type ArchTensor, arr, f32, tensorList, u32 } from './arch-common.js';
import type { IswaShape, ModelShape } from './shape.js';

function iswaOf(s: ModelShape): IswaShape {
  if (!s.iswa) throw new RangeError('gemma4 needs an interleaved attention shape');
  return s.iswa;
}

/** Layer i attends within the sliding window: all but every fullEvery-th. */
export const isSliding = (s: ModelShape, i: number): boolean => (i + 1) % iswaOf(s).fullEvery !== 0;

const layers = (s: ModelShape): number[] => Array.from({ length: s.nLayer }, (_, i) => i);

/** Keys of the common table that gemma4 writes otherwise (per layer, or for its full layers). */
export function gemma4Hparams(s: ModelShape): TypedKv[] {
  const a = 'gemma4';
  const w = iswaOf(s);
  return [
    arr(`${a}.attention.sliding_window_pattern`, GgufValueType.BOOL, layers(s).map((i) => isSliding(s, i))),
    arr(`${a}.attention.head_count_kv`, GgufValueType.UINT32, layers(s).map((i) => (isSliding(s, i) ? s.nHeadKv : w.nHeadKvFull))),
    u32(`${a}.attention.key_length`, w.headDimFull),
    u32(`${a}.attention.value_length`, w.headDimFull),
    u32(`${a}.attention.key_length_swa`, s.headDim),
    u32(`${a}.attention.value_length_swa`, s.headDim),
    u32(`${a}.rope.dimension_count`, w.headDimFull),
    u32(`${a}.rope.dimension_count_swa`, s.headDim),
    f32(`${a}.rope.freq_base_swa`, w.ropeFreqBaseSwa),
    u32(`${a}.attention.sliding_window`, w.slidingWindow),
    f32(`${a}.final_logit_softcapping`, w.finalLogitSoftcap),
    u32(`${a}.embedding_length_per_layer_input`, 0),
    u32(`${a}.attention.shared_kv_layers`, 0),
  ];
}

export function gemma4Tensors(s: ModelShape, nVocab: number): ArchTensor[] {
  const E = s.nEmbd;
  const w = iswaOf(s);
  const { t, blk } = tensorList();
  t.push({ name: 'token_embd.weight', dims: [E, nVocab], role: 'embedding' });
  // Proportional RoPE's frequency factors for the full layers (ones: every pair rotated).
  t.push({ name: 'rope_freqs.weight', dims: [w.headDimFull / 2], role: 'norm' });
  for (let i = 0; i < s.nLayer; i++) {
    const hd = isSliding(s, i) ? s.headDim : w.headDimFull;
    const kv = hd * (isSliding(s, i) ? s.nHeadKv : w.nHeadKvFull);
    blk(i, 'attn_norm.weight', [E], 'norm');
    blk(i, 'attn_q.weight', [E, hd * s.nHead], 'matrix');
    blk(i, 'attn_k.weight', [E, kv], 'matrix');
    blk(i, 'attn_v.weight', [E, kv], 'matrix');
    blk(i, 'attn_output.weight', [hd * s.nHead, E], 'residualOut');
    blk(i, 'attn_q_norm.weight', [hd], 'norm');
    blk(i, 'attn_k_norm.weight', [hd], 'norm');
    blk(i, 'post_attention_norm.weight', [E], 'norm');
    blk(i, 'layer_output_scale.weight', [1], 'norm');
    blk(i, 'ffn_norm.weight', [E], 'norm');
    blk(i, 'ffn_gate.weight', [E, s.nFf], 'matrix');
    blk(i, 'ffn_up.weight', [E, s.nFf], 'matrix');
    blk(i, 'ffn_down.weight', [s.nFf, E], 'residualOut');
    blk(i, 'post_ffw_norm.weight', [E], 'norm');
    blk(i, 'ffn_gate_inp.weight', [E, s.nExpert], 'router');
    // The router's input is rms_norm(x) / sqrt(n_embd) · scale: sqrt(n_embd) gives it unit RMS.
    blk(i, 'ffn_gate_inp.scale', [E], 'norm', Math.sqrt(E));
    blk(i, 'pre_ffw_norm_2.weight', [E], 'norm');
    blk(i, 'post_ffw_norm_1.weight', [E], 'norm');
    blk(i, 'post_ffw_norm_2.weight', [E], 'norm');
    blk(i, 'ffn_gate_up_exps.weight', [E, 2 * s.nFfExp, s.nExpert], 'matrix');
    blk(i, 'ffn_down_exps.weight', [s.nFfExp, E, s.nExpert], 'residualOut');
    blk(i, 'ffn_down_exps.scale', [s.nExpert], 'expertScale');
  }
  t.push({ name: 'output_norm.weight', dims: [E], role: 'norm' });
  if (!s.tieEmbeddings) t.push({ name: 'output.weight', dims: [E, nVocab], role: 'output' });
  return t;
}
