// The capability registry behind `ramforge support`: architectures and tensor types, and for
// each what we have our own evidence for versus what is delegated to llama.cpp unverified.
import { GGML_TYPES } from './gguf/ggml-types.js';
import { ARCH_REQUIREMENTS } from './gguf/arch-requirements.js';

/**
 * - tested: our own tests exercise it (named in `evidence`)
 * - native-tests: the native test suite runs it on synthetic models of this architecture
 * - generic: works through the generic GGUF path (any well-formed file), not tested per architecture
 * - delegated: llama.cpp implements it; we have no evidence of our own
 */
export type EvidenceLevel = 'tested' | 'native-tests' | 'generic' | 'delegated';

export interface ArchCapability {
  readonly name: string;
  readonly inspect: EvidenceLevel;
  readonly plan: EvidenceLevel;
  readonly run: EvidenceLevel;
  readonly stream: EvidenceLevel;
  /** Required tensors checked by inspect (missing ones are refused). */
  readonly requiredTensorsChecked: boolean;
  /** Where the evidence lives. */
  readonly evidence: string[];
}

export interface TensorTypeCapability {
  readonly id: number;
  readonly name: string;
  readonly blockSize: number;
  readonly typeSize: number;
  readonly bitsPerWeight: number;
  /** `ramforge synth --type` can write it. */
  readonly synth: boolean;
  /** Byte sizes are computed by the reader (all types in ggml-types.ts). */
  readonly inspect: boolean;
  readonly plan: boolean;
}

export const OUR_ARCHITECTURES = ['llama', 'qwen2', 'gptneox'] as const;
/** Mixtures of experts `synth` writes (llama's Mixtral layout is covered by llama above). */
export const OUR_MOE_ARCHITECTURES = ['qwen3moe', 'qwen2moe', 'gpt-oss', 'deepseek2', 'glm4moe', 'qwen35moe', 'gemma4'] as const;
export const SYNTH_TYPES = ['F32', 'F16', 'Q8_0', 'Q4_0', 'Q4_K', 'MXFP4'] as const;

/** Architecture names known to the pinned llama.cpp (src/llama-arch.cpp, LLM_ARCH_NAMES). */
export const LLAMA_CPP_ARCHITECTURES: readonly string[] = [
  'clip',
  'llama',
  'llama4',
  'deci',
  'falcon',
  'grok',
  'gpt2',
  'gptj',
  'gptneox',
  'mpt',
  'baichuan',
  'starcoder',
  'refact',
  'bert',
  'modern-bert',
  'nomic-bert',
  'nomic-bert-moe',
  'neo-bert',
  'jina-bert-v2',
  'jina-bert-v3',
  'eurobert',
  'bloom',
  'stablelm',
  'qwen',
  'qwen2',
  'qwen2moe',
  'qwen2vl',
  'qwen3',
  'qwen3moe',
  'qwen3next',
  'qwen3vl',
  'qwen3vlmoe',
  'qwen35',
  'qwen35moe',
  'qwen4exp',
  'phi2',
  'phi3',
  'phimoe',
  'plamo',
  'plamo2',
  'plamo3',
  'codeshell',
  'orion',
  'internlm2',
  'minicpm',
  'minicpm3',
  'gemma',
  'gemma2',
  'gemma3',
  'gemma3n',
  'gemma4',
  'gemma4-assistant',
  'gemma-embedding',
  'starcoder2',
  'mamba',
  'mamba2',
  'maple',
  'jamba',
  'falcon-h1',
  'xverse',
  'command-r',
  'cohere2',
  'cohere2moe',
  'dbrx',
  'olmo',
  'olmo2',
  'olmoe',
  'muse-glimmer',
  'openelm',
  'arctic',
  'deepseek',
  'deepseek2',
  'deepseek2-ocr',
  'deepseek32',
  'deepseek4',
  'chatglm',
  'glm4',
  'glm4moe',
  'glm-dsa',
  'bitnet',
  't5',
  't5encoder',
  'jais',
  'jais2',
  'nemotron',
  'nemotron_h',
  'nemotron_h_moe',
  'exaone',
  'exaone4',
  'exaone-moe',
  'rwkv6',
  'rwkv6qwen2',
  'rwkv7',
  'arwkv7',
  'granite',
  'granitemoe',
  'granitehybrid',
  'graniteswitch',
  'granite_swa',
  'chameleon',
  'wavtokenizer-dec',
  'plm',
  'bailingmoe',
  'bailingmoe2',
  'bailingmoe3',
  'dots1',
  'dots3note',
  'arcee',
  'afmoe',
  'laguna',
  'ernie4_5',
  'ernie4_5-moe',
  'hunyuan-moe',
  'hunyuan-dense',
  'hunyuan_vl',
  'hy_v3',
  'hy_v4',
  'smollm3',
  'gpt-oss',
  'lfm2',
  'lfm2moe',
  'dream',
  'smallthinker',
  'llada',
  'llada-moe',
  'seed_oss',
  'grovemoe',
  'apertus',
  'minimax-01',
  'hrm_text',
  'minimax-m2',
  'minimax-m3',
  'cogvlm',
  'rnd1',
  'pangu-embedded',
  'mistral3',
  'eagle3',
  'dflash',
  'mistral4',
  'paddleocr',
  'mimo2',
  'step35',
  'spark2_5',
  'llama-embed',
  'maincoder',
  'kimi-linear',
  'kimi-k3',
  'talkie',
  'mellum',
  'nanbeige',
  'qwen3tts',
  'pockettts',
];

const OUR_EVIDENCE = [
  'src-main/shared/gguf/model-view.test.ts (layers, required tensors, byte totals)',
  'src-main/shared/plan/plan.test.ts (tiers, KV, verdicts)',
  'src-main/cli/run-parity.test.ts (greedy tokens equal llama.cpp llama-simple, Q4_0/Q8_0/Q4_K/F16)',
  'src-main/worker/residency-engine.test.ts (stream schedule: tokens identical to off, pinned kept, streamed dropped)',
];

const MOE_EVIDENCE = [
  'src-main/shared/gguf/moe-view.test.ts (experts per layer, bytes per expert, active bytes)',
  'src-main/shared/plan/plan-moe.test.ts (the dense part locked, the expert cache, the MoE floor)',
  'src-main/cli/run-parity.test.ts (greedy tokens equal llama.cpp llama-simple, Q4_0/Q8_0/F32; llama --experts at Q4_0/F16)',
  'src-main/cli/moe-stream.test.ts (under an enforced cap, stream gives off\'s tokens from the expert cache: 0 limit hits in decode, reads ≤ the active bytes)',
];

/** What each family adds to the MoE evidence: the layout its tests exercised. */
const FAMILY_EVIDENCE: Partial<Record<(typeof OUR_MOE_ARCHITECTURES)[number], string>> = {
  'gpt-oss': 'synth/families.test.ts, run-parity (MXFP4), moe-stream at half the file: MXFP4 expert slices, per-expert biases through ADD_ID, attention sinks, sliding window',
  deepseek2: 'synth/families.test.ts, run-parity (Q4_0, Q8_0), moe-stream at half the file: MLA, a leading dense layer, a shared expert, grouped sigmoid routing',
  glm4moe: 'synth/families.test.ts, run-parity (Q4_0), moe-stream at half the file: a leading dense layer, a shared expert, a selection bias',
  qwen35moe: 'synth/families.test.ts, run-parity (Q4_0, Q8_0), moe-stream at half the file: fused ffn_gate_up_exps, delta-net (recurrent) layers between full attention ones, a gated shared expert',
  gemma4: 'synth/families.test.ts, run-parity (Q4_0, Q8_0), moe-stream at half the file: fused ffn_gate_up_exps, per-expert output scales picked by expert id, sliding and full layers with heads of their own',
};

export function architectureCapabilities(): ArchCapability[] {
  const ours: ArchCapability[] = OUR_ARCHITECTURES.map((name) => ({
    name,
    inspect: 'tested',
    plan: 'tested',
    run: 'native-tests',
    stream: 'native-tests',
    requiredTensorsChecked: name in ARCH_REQUIREMENTS,
    evidence: OUR_EVIDENCE,
  }));
  // Run is checked against llama-simple, stream under an enforced cap (moe-stream.test.ts).
  const moe: ArchCapability[] = OUR_MOE_ARCHITECTURES.map((name) => ({
    name,
    inspect: 'tested',
    plan: 'tested',
    run: 'tested',
    stream: 'tested',
    requiredTensorsChecked: name in ARCH_REQUIREMENTS,
    evidence: FAMILY_EVIDENCE[name] ? [...MOE_EVIDENCE, FAMILY_EVIDENCE[name]] : MOE_EVIDENCE,
  }));
  const mine = [...OUR_ARCHITECTURES, ...OUR_MOE_ARCHITECTURES] as readonly string[];
  const others: ArchCapability[] = LLAMA_CPP_ARCHITECTURES.filter((a) => !mine.includes(a)).map((name) => ({
    name,
    inspect: 'generic',
    plan: 'generic',
    run: 'delegated',
    stream: 'delegated',
    requiredTensorsChecked: false,
    evidence: [],
  }));
  return [...ours, ...moe, ...others];
}

export function tensorTypeCapabilities(): TensorTypeCapability[] {
  return GGML_TYPES.map((t) => ({
    id: t.id,
    name: t.name,
    blockSize: t.blockSize,
    typeSize: t.typeSize,
    bitsPerWeight: Math.round(((t.typeSize * 8) / t.blockSize) * 1000) / 1000,
    synth: (SYNTH_TYPES as readonly string[]).includes(t.name),
    inspect: true,
    plan: true,
  }));
}
