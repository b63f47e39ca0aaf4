// Tensors an architecture cannot load without (from llama.cpp's src/models/<arch>.cpp of the
// pinned tag: create_tensor(..., 0) calls). Each requirement is a list of alternatives; one
// of them must exist. Per-layer names use `blk.{i}.`.

export interface ArchRequirements {
  readonly global: readonly (readonly string[])[];
  readonly perLayer: readonly (readonly string[])[];
}

const LLAMA_LIKE: ArchRequirements = {
  global: [['token_embd.weight'], ['output_norm.weight']],
  perLayer: [
    ['attn_norm.weight'],
    ['attn_q.weight', 'attn_qkv.weight'],
    ['attn_k.weight', 'attn_qkv.weight'],
    ['attn_v.weight', 'attn_qkv.weight'],
    ['attn_output.weight'],
    ['ffn_norm.weight'],
    ['ffn_gate.weight', 'ffn_gate_inp.weight'],
    ['ffn_up.weight', 'ffn_up_exps.weight'],
    ['ffn_down.weight', 'ffn_down_exps.weight'],
  ],
};

/** qwen3moe and qwen2moe: attention as qwen2, every layer a router and three expert tensors. */
const QWEN_MOE_LAYER: readonly (readonly string[])[] = [
  ...LLAMA_LIKE.perLayer.filter((r) => !r[0]?.startsWith('ffn_')),
  ['ffn_norm.weight'],
  ['ffn_gate_inp.weight'],
  ['ffn_gate_exps.weight'],
  ['ffn_up_exps.weight'],
  ['ffn_down_exps.weight'],
];

/** Leading dense layers and MoE layers alike: a dense FFN or routed experts (gate and up split or fused). */
const DENSE_OR_ROUTED: readonly (readonly string[])[] = [
  ['ffn_gate.weight', 'ffn_gate_inp.weight'],
  ['ffn_up.weight', 'ffn_up_exps.weight', 'ffn_gate_up_exps.weight'],
  ['ffn_down.weight', 'ffn_down_exps.weight'],
];

/** gpt-oss (openai-moe.cpp): every tensor its loader creates with flags 0. */
const GPT_OSS: ArchRequirements = {
  global: [...LLAMA_LIKE.global, ['output.weight']],
  perLayer: [
    ...LLAMA_LIKE.perLayer.filter((r) => !r[0]?.startsWith('ffn_')),
    ['post_attention_norm.weight'],
    ['attn_output.bias'],
    ['attn_sinks.weight'],
    ['ffn_gate_inp.weight'],
    ['ffn_gate_inp.bias'],
    ['ffn_gate_exps.weight'],
    ['ffn_up_exps.weight'],
    ['ffn_down_exps.weight'],
    ['ffn_gate_exps.bias'],
    ['ffn_up_exps.bias'],
    ['ffn_down_exps.bias'],
  ],
};

/** deepseek2 (deepseek2.cpp): MLA (a low-rank or plain Q; split or joint K/V expansion), leading dense layers. */
const DEEPSEEK2: ArchRequirements = {
  global: LLAMA_LIKE.global,
  perLayer: [
    ['attn_norm.weight'],
    ['attn_kv_a_norm.weight'],
    ['attn_q_b.weight', 'attn_q.weight'],
    ['attn_kv_a_mqa.weight'],
    ['attn_k_b.weight', 'attn_kv_b.weight'],
    ['attn_output.weight'],
    ['ffn_norm.weight'],
    ...DENSE_OR_ROUTED,
  ],
};

/** glm4moe (glm4-moe.cpp): qwen2-like attention, post_attention_norm before the FFN, leading dense layers. */
const GLM4MOE: ArchRequirements = {
  global: LLAMA_LIKE.global,
  perLayer: [...LLAMA_LIKE.perLayer.filter((r) => !r[0]?.startsWith('ffn_')), ['post_attention_norm.weight'], ...DENSE_OR_ROUTED],
};

/** Routed experts with gate and up split or fused (ffn_gate_up_exps), as create_tensor_gate_up_exps loads them. */
const ROUTED_GATE_UP: readonly (readonly string[])[] = [
  ['ffn_gate_inp.weight'],
  ['ffn_gate_up_exps.weight', 'ffn_gate_exps.weight'],
  ['ffn_gate_up_exps.weight', 'ffn_up_exps.weight'],
  ['ffn_down_exps.weight'],
];

/** qwen35moe (qwen35moe.cpp): delta-net or full attention by layer, routed experts beside a gated shared expert. */
const QWEN35MOE: ArchRequirements = {
  global: LLAMA_LIKE.global,
  perLayer: [
    ['attn_norm.weight'],
    ['post_attention_norm.weight'],
    // A delta-net layer's output projection, or a full attention layer's.
    ['ssm_out.weight', 'attn_output.weight'],
    ...ROUTED_GATE_UP,
    ['ffn_gate_inp_shexp.weight'],
    ['ffn_gate_shexp.weight'],
    ['ffn_up_shexp.weight'],
    ['ffn_down_shexp.weight'],
  ],
};

/** gemma4 (gemma4.cpp): normed Q/K heads, a dense MLP on every layer (experts optional), rope_freqs for the full layers. */
const GEMMA4: ArchRequirements = {
  global: [...LLAMA_LIKE.global, ['rope_freqs.weight']],
  perLayer: [
    ['attn_norm.weight'],
    ['attn_q.weight', 'attn_qkv.weight'],
    ['attn_output.weight'],
    ['attn_q_norm.weight'],
    ['post_attention_norm.weight'],
    ['ffn_norm.weight'],
    ['ffn_gate.weight'],
    ['ffn_up.weight'],
    ['ffn_down.weight'],
    ['post_ffw_norm.weight'],
  ],
};

export const ARCH_REQUIREMENTS: Readonly<Record<string, ArchRequirements>> = {
  qwen35moe: QWEN35MOE,
  gemma4: GEMMA4,
  'gpt-oss': GPT_OSS,
  deepseek2: DEEPSEEK2,
  glm4moe: GLM4MOE,
  llama: LLAMA_LIKE,
  qwen2: {
    global: LLAMA_LIKE.global,
    perLayer: [...LLAMA_LIKE.perLayer.filter((r) => !r[0]?.startsWith('ffn_')), ['ffn_norm.weight'], ['ffn_gate.weight'], ['ffn_up.weight'], ['ffn_down.weight']],
  },
  qwen3moe: { global: LLAMA_LIKE.global, perLayer: [...QWEN_MOE_LAYER, ['attn_k_norm.weight'], ['attn_q_norm.weight']] },
  qwen2moe: {
    global: [...LLAMA_LIKE.global, ['output.weight']],
    perLayer: [...QWEN_MOE_LAYER, ['ffn_gate_inp_shexp.weight'], ['ffn_gate_shexp.weight'], ['ffn_up_shexp.weight'], ['ffn_down_shexp.weight']],
  },
  gptneox: {
    global: [['token_embd.weight'], ['output_norm.weight'], ['output_norm.bias'], ['output.weight']],
    perLayer: [
      ['attn_norm.weight'],
      ['attn_norm.bias'],
      ['attn_qkv.weight'],
      ['attn_qkv.bias'],
      ['attn_output.weight'],
      ['attn_output.bias'],
      ['ffn_norm.weight'],
      ['ffn_norm.bias'],
      ['ffn_up.weight'],
      ['ffn_up.bias'],
      ['ffn_down.weight'],
      ['ffn_down.bias'],
    ],
  },
};

/** Names of required tensors that are missing (first alternative named), in order. */
export function missingTensors(arch: string, blockCount: number, has: (name: string) => boolean): string[] {
  const req = ARCH_REQUIREMENTS[arch];
  if (!req) return [];
  const missing: string[] = [];
  for (const alts of req.global) if (!alts.some(has)) missing.push(alts.join(' or '));
  for (let i = 0; i < blockCount; i++) {
    for (const alts of req.perLayer) {
      const names = alts.map((a) => `blk.${i}.${a}`);
      if (!names.some(has)) missing.push(names.join(' or '));
    }
  }
  return missing;
}
