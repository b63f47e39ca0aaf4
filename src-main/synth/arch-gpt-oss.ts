// gpt-oss (llama.cpp's LLM_ARCH_OPENAI_MOE, src/models/openai-moe.cpp): every layer a mixture of
// experts with per-expert biases (ffn_*_exps.bias, applied through ADD_ID), a router bias,
// attention sinks (one logit per head), Q/K/V/O biases, post_attention_norm as the FFN's norm,
// and sliding-window attention on every other layer. Heads are 64 wide on a 2880-wide stream.
import type { TypedKv } from '../shared/gguf/writer-types.js';
import { type ArchTensor, f32, routedExperts, str, tensorList, u32, biasedQkv } from './arch-common.js';
import type { ModelShape } from './shape.js';

export function gptOssHparams(s: ModelShape): TypedKv[] {
  const a = 'gpt-oss';
  return [
    u32(`${a}.attention.sliding_window`, s.slidingWindow ?? 128),
    // The real checkpoints extend a 4096-token training context 32× with YaRN.
    str(`${a}.rope.scaling.type`, 'yarn'),
    f32(`${a}.rope.scaling.factor`, 32),
    u32(`${a}.rope.scaling.original_context_length`, 4096),
  ];
}

export function gptOssTensors(s: ModelShape, nVocab: number): ArchTensor[] {
  const E = s.nEmbd;
  const qDim = s.headDim * s.nHead;
  const kvDim = s.headDim * s.nHeadKv;
  const ff = s.nFfExp;
  const { t, blk } = tensorList();
  t.push({ name: 'token_embd.weight', dims: [E, nVocab], role: 'embedding' });
  for (let i = 0; i < s.nLayer; i++) {
    blk(i, 'attn_norm.weight', [E], 'norm');
    biasedQkv(blk, i, E, qDim, kvDim);
    blk(i, 'attn_output.weight', [qDim, E], 'residualOut');
    blk(i, 'attn_output.bias', [E], 'residualBias');
    blk(i, 'attn_sinks.weight', [s.nHead], 'bias');
    blk(i, 'post_attention_norm.weight', [E], 'norm');
    routedExperts(blk, i, E, ff, s.nExpert);
    blk(i, 'ffn_gate_inp.bias', [s.nExpert], 'bias');
    blk(i, 'ffn_gate_exps.bias', [ff, s.nExpert], 'bias');
    blk(i, 'ffn_down_exps.bias', [E, s.nExpert], 'residualBias');
    blk(i, 'ffn_up_exps.bias', [ff, s.nExpert], 'bias');
  }
  t.push({ name: 'output_norm.weight', dims: [E], role: 'norm' });
  t.push({ name: 'output.weight', dims: [E, nVocab], role: 'output' });
  return t;
}
