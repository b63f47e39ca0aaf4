// deepseek2 (src/models/deepseek2.cpp): multi-head latent attention (a low-rank Q through
// attn_q_a/attn_q_b, or a plain attn_q where q_lora_rank is 0 as in V2-Lite; a joint KV latent
// attn_kv_a_mqa with its norm; attn_k_b/attn_v_b expanding it per head), the first
// leading_dense_block_count layers with a dense FFN, the rest with routed experts beside shared
// ones (*_shexp, expert_shared_count × expert width), and V3's routing: sigmoid gating, a
// selection bias exp_probs_b, experts in groups of which a few are searched.
import type { TypedKv } from '../shared/gguf/writer-types.js';
import { type ArchTensor, bool, f32, routedExperts, swiglu, tensorList, u32 } from './arch-common.js';
import type { MlaShape, ModelShape } from './shape.js';

/** llama.cpp's llama_expert_gating_func_type. */
const GATING_SOFTMAX = 1;
const GATING_SIGMOID = 2;

function mlaOf(s: ModelShape): MlaShape {
  if (!s.mla) throw new RangeError('deepseek2 needs a multi-head latent attention shape');
  return s.mla;
}

/** V3's routing (sigmoid, a selection bias) where experts are grouped; V2's softmax where not. */
const v3Routing = (s: ModelShape): boolean => (s.nExpertGroups ?? 0) > 1;

export function deepseek2Hparams(s: ModelShape): TypedKv[] {
  const a = 'deepseek2';
  const m = mlaOf(s);
  const kv = [
    // The KV cache holds the latent (kv_lora_rank) and the roped key part, one "head" of each.
    u32(`${a}.attention.key_length`, m.kvLoraRank + m.ropeDim),
    u32(`${a}.attention.value_length`, m.kvLoraRank),
    u32(`${a}.attention.key_length_mla`, m.nopeDim + m.ropeDim),
    u32(`${a}.attention.value_length_mla`, m.vDim),
    u32(`${a}.attention.q_lora_rank`, m.qLoraRank),
    u32(`${a}.attention.kv_lora_rank`, m.kvLoraRank),
    u32(`${a}.leading_dense_block_count`, s.nLeadingDense ?? 0),
    u32(`${a}.expert_shared_count`, s.nExpertShared ?? 0),
    f32(`${a}.expert_weights_scale`, v3Routing(s) ? 2.5 : 1),
    bool(`${a}.expert_weights_norm`, v3Routing(s)),
    u32(`${a}.expert_gating_func`, v3Routing(s) ? GATING_SIGMOID : GATING_SOFTMAX),
  ];
  if (v3Routing(s)) kv.push(u32(`${a}.expert_group_count`, s.nExpertGroups ?? 0), u32(`${a}.expert_group_used_count`, s.nGroupUsed ?? 0));
  return kv;
}

export function deepseek2Tensors(s: ModelShape, nVocab: number): ArchTensor[] {
  const E = s.nEmbd;
  const m = mlaOf(s);
  const qHead = m.nopeDim + m.ropeDim;
  const { t, blk } = tensorList();
  t.push({ name: 'token_embd.weight', dims: [E, nVocab], role: 'embedding' });
  for (let i = 0; i < s.nLayer; i++) {
    blk(i, 'attn_norm.weight', [E], 'norm');
    if (m.qLoraRank > 0) {
      blk(i, 'attn_q_a_norm.weight', [m.qLoraRank], 'norm');
      blk(i, 'attn_q_a.weight', [E, m.qLoraRank], 'matrix');
      blk(i, 'attn_q_b.weight', [m.qLoraRank, s.nHead * qHead], 'matrix');
    } else {
      blk(i, 'attn_q.weight', [E, s.nHead * qHead], 'matrix');
    }
    blk(i, 'attn_kv_a_norm.weight', [m.kvLoraRank], 'norm');
    blk(i, 'attn_kv_a_mqa.weight', [E, m.kvLoraRank + m.ropeDim], 'matrix');
    blk(i, 'attn_k_b.weight', [m.nopeDim, m.kvLoraRank, s.nHead], 'matrix');
    blk(i, 'attn_v_b.weight', [m.kvLoraRank, m.vDim, s.nHead], 'matrix');
    blk(i, 'attn_output.weight', [s.nHead * m.vDim, E], 'residualOut');
    blk(i, 'ffn_norm.weight', [E], 'norm');
    if (i < (s.nLeadingDense ?? 0)) {
      swiglu(blk, i, E, s.nFf);
      continue;
    }
    routedExperts(blk, i, E, s.nFfExp, s.nExpert);
    if (v3Routing(s)) blk(i, 'exp_probs_b.bias', [s.nExpert], 'bias');
    if (s.nFfShexp > 0) swiglu(blk, i, E, s.nFfShexp, '_shexp');
  }
  t.push({ name: 'output_norm.weight', dims: [E], role: 'norm' });
  t.push({ name: 'output.weight', dims: [E, nVocab], role: 'output' });
  return t;
}
