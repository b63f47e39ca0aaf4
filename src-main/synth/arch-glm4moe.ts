// glm4moe (src/models/glm4-moe.cpp, GLM-4.5/4.6 and -Air): Q/K/V biases, half of each head
// roped, post_attention_norm as the FFN's norm, the first leading_dense_block_count layers dense,
// the rest routed experts beside a shared one, sigmoid gating with a selection bias exp_probs_b.
import type { TypedKv } from '../shared/gguf/writer-types.js';
import { type ArchTensor, bool, f32, routedExperts, swiglu, tensorList, u32, biasedQkv } from './arch-common.js';
import type { ModelShape } from './shape.js';

export function glm4moeHparams(s: ModelShape): TypedKv[] {
  const a = 'glm4moe';
  return [
    u32(`${a}.leading_dense_block_count`, s.nLeadingDense ?? 0),
    u32(`${a}.expert_shared_count`, s.nExpertShared ?? 0),
    f32(`${a}.expert_weights_scale`, 1),
    bool(`${a}.expert_weights_norm`, true),
    u32(`${a}.expert_gating_func`, 2),
  ];
}

export function glm4moeTensors(s: ModelShape, nVocab: number): ArchTensor[] {
  const E = s.nEmbd;
  const qDim = s.headDim * s.nHead;
  const kvDim = s.headDim * s.nHeadKv;
  const { t, blk } = tensorList();
  t.push({ name: 'token_embd.weight', dims: [E, nVocab], role: 'embedding' });
  for (let i = 0; i < s.nLayer; i++) {
    blk(i, 'attn_norm.weight', [E], 'norm');
    biasedQkv(blk, i, E, qDim, kvDim);
    blk(i, 'attn_output.weight', [qDim, E], 'residualOut');
    blk(i, 'post_attention_norm.weight', [E], 'norm');
    if (i < (s.nLeadingDense ?? 0)) {
      swiglu(blk, i, E, s.nFf);
      continue;
    }
    routedExperts(blk, i, E, s.nFfExp, s.nExpert);
    blk(i, 'exp_probs_b.bias', [s.nExpert], 'bias');
    if (s.nFfShexp > 0) swiglu(blk, i, E, s.nFfShexp, '_shexp');
  }
  t.push({ name: 'output_norm.weight', dims: [E], role: 'norm' });
  t.push({ name: 'output.weight', dims: [E, nVocab], role: 'output' });
  return t;
}
