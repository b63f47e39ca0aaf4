// qwen35moe (src/models/qwen35moe.cpp, Qwen3.5/3.6-35B-A3B): hybrid attention — every
// full_attention_interval-th layer gated full attention (a Q projection twice as wide, the
// second half a sigmoid gate on the output; RMS-normed Q and K heads; interleaved M-RoPE on a
// quarter of each head), the others a gated delta net (a joint QKV projection, a short
// convolution, a recurrent state per head, a gated output norm) — and on every layer routed
// experts with gate and up fused into one ffn_gate_up_exps, as the real files hold them,
// beside a shared expert scaled by sigmoid(x · ffn_gate_inp_shexp).
import type { TypedKv } from '../shared/gguf/writer-types.js';
import { GgufValueType } from '../shared/gguf/ggml-types.js';
import { type ArchTensor, arr, tensorList, u32 } from './arch-common.js';
import type { LinearAttnShape, ModelShape } from './shape.js';

function linearOf(s: ModelShape): LinearAttnShape {
  if (!s.linearAttn) throw new RangeError('qwen35moe needs a linear attention shape');
  return s.linearAttn;
}

/** Layer i is a delta-net (recurrent) layer: all but every interval-th. */
export const isRecurrent = (s: ModelShape, i: number): boolean => (i + 1) % linearOf(s).fullAttnInterval !== 0;

/** M-RoPE sections over the rotated pairs, in Qwen3.5's proportions (11, 11, 10 of 32). */
function ropeSections(ropeDim: number): number[] {
  const pairs = ropeDim / 2;
  const a = Math.round((pairs * 11) / 32);
  return [a, a, pairs - 2 * a, 0];
}

export function qwen35moeHparams(s: ModelShape): TypedKv[] {
  const a = 'qwen35moe';
  const l = linearOf(s);
  return [
    u32(`${a}.expert_shared_feed_forward_length`, s.nFfShexp),
    arr(`${a}.rope.dimension_sections`, GgufValueType.INT32, ropeSections(s.ropeDim)),
    u32(`${a}.ssm.conv_kernel`, l.convKernel),
    u32(`${a}.ssm.state_size`, l.stateSize),
    u32(`${a}.ssm.group_count`, l.nKHeads),
    u32(`${a}.ssm.time_step_rank`, l.nVHeads),
    u32(`${a}.ssm.inner_size`, l.stateSize * l.nVHeads),
    u32(`${a}.full_attention_interval`, l.fullAttnInterval),
  ];
}

export function qwen35moeTensors(s: ModelShape, nVocab: number): ArchTensor[] {
  const E = s.nEmbd;
  const l = linearOf(s);
  const keyDim = l.stateSize * l.nKHeads;
  const valueDim = l.stateSize * l.nVHeads;
  const { t, blk } = tensorList();
  t.push({ name: 'token_embd.weight', dims: [E, nVocab], role: 'embedding' });
  for (let i = 0; i < s.nLayer; i++) {
    blk(i, 'attn_norm.weight', [E], 'norm');
    blk(i, 'post_attention_norm.weight', [E], 'norm');
    if (isRecurrent(s, i)) {
      blk(i, 'attn_qkv.weight', [E, 2 * keyDim + valueDim], 'matrix');
      blk(i, 'attn_gate.weight', [E, valueDim], 'matrix');
      blk(i, 'ssm_conv1d.weight', [l.convKernel, 2 * keyDim + valueDim], 'conv');
      blk(i, 'ssm_dt.bias', [l.nVHeads], 'bias');
      // A = -exp(A_log): a decay, negative, or the recurrent state grows without bound.
      blk(i, 'ssm_a', [l.nVHeads], 'norm', -1);
      blk(i, 'ssm_beta.weight', [E, l.nVHeads], 'matrix');
      blk(i, 'ssm_alpha.weight', [E, l.nVHeads], 'matrix');
      blk(i, 'ssm_norm.weight', [l.stateSize], 'norm');
      blk(i, 'ssm_out.weight', [valueDim, E], 'residualOut');
    } else {
      blk(i, 'attn_q.weight', [E, 2 * s.headDim * s.nHead], 'matrix');
      blk(i, 'attn_k.weight', [E, s.headDim * s.nHeadKv], 'matrix');
      blk(i, 'attn_v.weight', [E, s.headDim * s.nHeadKv], 'matrix');
      blk(i, 'attn_output.weight', [s.headDim * s.nHead, E], 'residualOut');
      blk(i, 'attn_q_norm.weight', [s.headDim], 'norm');
      blk(i, 'attn_k_norm.weight', [s.headDim], 'norm');
    }
    blk(i, 'ffn_gate_inp.weight', [E, s.nExpert], 'router');
    blk(i, 'ffn_gate_up_exps.weight', [E, 2 * s.nFfExp, s.nExpert], 'matrix');
    blk(i, 'ffn_down_exps.weight', [s.nFfExp, E, s.nExpert], 'residualOut');
    blk(i, 'ffn_gate_inp_shexp.weight', [E], 'matrix');
    blk(i, 'ffn_gate_shexp.weight', [E, s.nFfShexp], 'matrix');
    blk(i, 'ffn_up_shexp.weight', [E, s.nFfShexp], 'matrix');
    blk(i, 'ffn_down_shexp.weight', [s.nFfShexp, E], 'residualOut');
  }
  t.push({ name: 'output_norm.weight', dims: [E], role: 'norm' });
  t.push({ name: 'output.weight', dims: [E, nVocab], role: 'output' });
  return t;
}
