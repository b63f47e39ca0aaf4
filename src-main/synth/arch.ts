// Architecture tables: hyperparameter keys and tensors (names, ggml shapes ne0-first) exactly as
// the pinned llama.cpp's loader asks for them (src/models/{llama,qwen2,gptneox,qwen3moe,
// qwen2moe}.cpp, llama-arch.cpp, llama-model.cpp); gpt-oss, deepseek2, glm4moe, qwen35moe and
// gemma4 have their own tables (arch-*.ts) beside the common keys written here (a family's key
// replaces a common one of the same name: gemma4's per-layer KV head counts). Mixtures of experts hold one 3-D tensor per
// projection and layer, expert-major ({n_embd, n_ff_exp, n_expert} for gate and up,
// {n_ff_exp, n_embd, n_expert} for down), and a router ffn_gate_inp {n_embd, n_expert}. Each tensor says what kind of values it holds; the planner turns that into
// a ggml type (1-D tensors stay F32) and an init distribution.
import type { TypedKv } from '../shared/gguf/writer-types.js';
import { type ArchTensor, type TensorRole, bool, f32, u32 } from './arch-common.js';
import { deepseek2Hparams, deepseek2Tensors } from './arch-deepseek2.js';
import { glm4moeHparams, glm4moeTensors } from './arch-glm4moe.js';
import { gemma4Hparams, gemma4Tensors } from './arch-gemma4.js';
import { gptOssHparams, gptOssTensors } from './arch-gpt-oss.js';
import { qwen35moeHparams, qwen35moeTensors } from './arch-qwen35moe.js';
import type { ArchName, ModelShape } from './shape.js';

export type { ArchTensor, TensorRole } from './arch-common.js';

/** The families written by a table of their own (arch-*.ts): their extra keys and their tensors. */
const FAMILIES: Partial<Record<ArchName, { hparams: (s: ModelShape) => TypedKv[]; tensors: (s: ModelShape, nVocab: number) => ArchTensor[] }>> = {
  'gpt-oss': { hparams: gptOssHparams, tensors: gptOssTensors },
  deepseek2: { hparams: deepseek2Hparams, tensors: deepseek2Tensors },
  glm4moe: { hparams: glm4moeHparams, tensors: glm4moeTensors },
  qwen35moe: { hparams: qwen35moeHparams, tensors: qwen35moeTensors },
  gemma4: { hparams: gemma4Hparams, tensors: gemma4Tensors },
};

export function archHparams(arch: ArchName, s: ModelShape, nVocab: number): TypedKv[] {
  const a = arch;
  const kv: TypedKv[] = [
    u32(`${a}.vocab_size`, nVocab),
    u32(`${a}.context_length`, s.nCtxTrain),
    u32(`${a}.embedding_length`, s.nEmbd),
    u32(`${a}.block_count`, s.nLayer),
    u32(`${a}.feed_forward_length`, s.nFf),
    u32(`${a}.attention.head_count`, s.nHead),
    u32(`${a}.attention.head_count_kv`, s.nHeadKv),
    f32(`${a}.rope.freq_base`, s.ropeFreqBase),
    u32(`${a}.rope.dimension_count`, s.ropeDim),
  ];
  // Qwen3 heads are wider than n_embd / n_head (128 on a 2048-wide stream with 32 heads).
  if (s.headDim * s.nHead !== s.nEmbd && !s.mla) kv.push(u32(`${a}.attention.key_length`, s.headDim), u32(`${a}.attention.value_length`, s.headDim));
  if (s.nExpert > 0) {
    kv.push(u32(`${a}.expert_count`, s.nExpert), u32(`${a}.expert_used_count`, s.nExpertUsed));
    // llama's Mixtral layout has no key of its own: its experts are feed_forward_length wide.
    if (arch !== 'llama') kv.push(u32(`${a}.expert_feed_forward_length`, s.nFfExp));
    if (arch === 'qwen2moe') kv.push(u32(`${a}.expert_shared_feed_forward_length`, s.nFfShexp));
  }
  if (arch === 'gptneox') {
    kv.push(f32(`${a}.attention.layer_norm_epsilon`, s.normEps), bool(`${a}.use_parallel_residual`, true));
  } else {
    kv.push(f32(`${a}.attention.layer_norm_rms_epsilon`, s.normEps));
  }
  const own = FAMILIES[arch]?.hparams(s) ?? [];
  const replaced = new Set(own.map((k) => k.key));
  return [...kv.filter((k) => !replaced.has(k.key)), ...own];
}

export function archTensors(arch: ArchName, s: ModelShape, nVocab: number): ArchTensor[] {
  const family = FAMILIES[arch];
  if (family) return family.tensors(s, nVocab);
  const E = s.nEmbd;
  const headDim = s.headDim;
  const qDim = headDim * s.nHead;
  const kvDim = headDim * s.nHeadKv;
  const t: ArchTensor[] = [{ name: 'token_embd.weight', dims: [E, nVocab], role: 'embedding' }];
  const blk = (i: number, name: string, dims: number[], role: TensorRole): void => {
    t.push({ name: `blk.${i}.${name}`, dims, role });
  };
  for (let i = 0; i < s.nLayer; i++) {
    if (arch === 'gptneox') {
      blk(i, 'attn_norm.weight', [E], 'norm');
      blk(i, 'attn_norm.bias', [E], 'normBias');
      blk(i, 'attn_qkv.weight', [E, E + 2 * kvDim], 'matrix');
      blk(i, 'attn_qkv.bias', [E + 2 * kvDim], 'bias');
      blk(i, 'attn_output.weight', [E, E], 'residualOut');
      blk(i, 'attn_output.bias', [E], 'residualBias');
      blk(i, 'ffn_norm.weight', [E], 'norm');
      blk(i, 'ffn_norm.bias', [E], 'normBias');
      blk(i, 'ffn_up.weight', [E, s.nFf], 'matrix');
      blk(i, 'ffn_up.bias', [s.nFf], 'bias');
      blk(i, 'ffn_down.weight', [s.nFf, E], 'residualOut');
      blk(i, 'ffn_down.bias', [E], 'residualBias');
      continue;
    }
    blk(i, 'attn_norm.weight', [E], 'norm');
    blk(i, 'attn_q.weight', [E, qDim], 'matrix');
    blk(i, 'attn_k.weight', [E, kvDim], 'matrix');
    blk(i, 'attn_v.weight', [E, kvDim], 'matrix');
    if (arch === 'qwen2' || arch === 'qwen2moe') {
      // Qwen2 checkpoints carry Q/K/V biases (optional for the loader, present in real files).
      blk(i, 'attn_q.bias', [qDim], 'bias');
      blk(i, 'attn_k.bias', [kvDim], 'bias');
      blk(i, 'attn_v.bias', [kvDim], 'bias');
    }
    blk(i, 'attn_output.weight', [qDim, E], 'residualOut');
    if (arch === 'qwen3moe') {
      // Qwen3 normalizes each query and key head (RMS) before RoPE.
      blk(i, 'attn_k_norm.weight', [headDim], 'norm');
      blk(i, 'attn_q_norm.weight', [headDim], 'norm');
    }
    blk(i, 'ffn_norm.weight', [E], 'norm');
    if (s.nExpert === 0) {
      blk(i, 'ffn_gate.weight', [E, s.nFf], 'matrix');
      blk(i, 'ffn_up.weight', [E, s.nFf], 'matrix');
      blk(i, 'ffn_down.weight', [s.nFf, E], 'residualOut');
      continue;
    }
    const ffExp = arch === 'llama' ? s.nFf : s.nFfExp;
    blk(i, 'ffn_gate_inp.weight', [E, s.nExpert], 'router');
    blk(i, 'ffn_gate_exps.weight', [E, ffExp, s.nExpert], 'matrix');
    blk(i, 'ffn_down_exps.weight', [ffExp, E, s.nExpert], 'residualOut');
    blk(i, 'ffn_up_exps.weight', [E, ffExp, s.nExpert], 'matrix');
    if (s.nFfShexp > 0) {
      // The shared expert every token runs, scaled by sigmoid(x · ffn_gate_inp_shexp).
      blk(i, 'ffn_gate_inp_shexp.weight', [E], 'matrix');
      blk(i, 'ffn_gate_shexp.weight', [E, s.nFfShexp], 'matrix');
      blk(i, 'ffn_down_shexp.weight', [s.nFfShexp, E], 'residualOut');
      blk(i, 'ffn_up_shexp.weight', [E, s.nFfShexp], 'matrix');
    }
  }
  t.push({ name: 'output_norm.weight', dims: [E], role: 'norm' });
  if (arch === 'gptneox') t.push({ name: 'output_norm.bias', dims: [E], role: 'normBias' });
  // gptneox and qwen2moe require output.weight; the others fall back to token_embd without it.
  if (arch === 'gptneox' || arch === 'qwen2moe' || !s.tieEmbeddings) t.push({ name: 'output.weight', dims: [E, nVocab], role: 'output' });
  return t;
}
