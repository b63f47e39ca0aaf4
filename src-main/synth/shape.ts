// The shape of a synthetic model and the names users pick from.
export const ARCHS = ['llama', 'qwen2', 'gptneox', 'qwen3moe', 'qwen2moe', 'gpt-oss', 'deepseek2', 'glm4moe', 'qwen35moe', 'gemma4'] as const;
export type ArchName = (typeof ARCHS)[number];

/** Architectures that are mixtures of experts (llama is one with --experts). */
export const MOE_ARCHS: readonly ArchName[] = ['qwen3moe', 'qwen2moe', 'gpt-oss', 'deepseek2', 'glm4moe', 'qwen35moe', 'gemma4'];

/** Architectures whose MoE layers carry shared experts beside the routed ones (*_shexp). */
export const SHEXP_ARCHS: readonly ArchName[] = ['qwen2moe', 'deepseek2', 'glm4moe', 'qwen35moe'];

/** Architectures whose shared expert has a width of its own (expert_shared_feed_forward_length, --shared-ff). */
export const SHEXP_WIDTH_ARCHS: readonly ArchName[] = ['qwen2moe', 'qwen35moe'];

export const PRESETS = ['tiny', 'small', '1b', '3b', '8b', '20b', '30b-a3b', '120b', 'v2-lite', 'v3', 'air', '35b-a3b', '26b-a4b'] as const;
export type PresetName = (typeof PRESETS)[number];

/** MXFP4: gpt-oss's native type: the routed experts in MXFP4, the other matrices in Q8_0. */
export const WEIGHT_TYPES = ['F32', 'F16', 'Q8_0', 'Q4_0', 'Q4_K', 'MXFP4'] as const;
export type WeightType = (typeof WEIGHT_TYPES)[number];

export interface ModelShape {
  readonly nEmbd: number;
  readonly nLayer: number;
  readonly nHead: number;
  readonly nHeadKv: number;
  readonly nFf: number;
  readonly nCtxTrain: number;
  /** No output.weight: the head reuses token_embd (llama, qwen2 only). */
  readonly tieEmbeddings: boolean;
  readonly ropeFreqBase: number;
  readonly normEps: number;
  /** Rotary dimensions per head (gptneox rotates a part of each head; llama/qwen2 all of it). */
  readonly ropeDim: number;
  /** Key/value head size; written as attention.key_length/value_length where it is not n_embd / n_head. */
  readonly headDim: number;
  /** Experts per layer (0: a dense model). */
  readonly nExpert: number;
  /** Experts each token is routed to. */
  readonly nExpertUsed: number;
  /** Feed-forward width of one expert (llama's Mixtral layout: n_ff itself). */
  readonly nFfExp: number;
  /** Feed-forward width of the shared expert (qwen2moe; 0 where there is none). */
  readonly nFfShexp: number;
  /** Skew of the routers (src-main/shared/moe/routing-model.ts); 0 is uniform routing. */
  readonly routerSkew: number;
  /** Layers before the first MoE layer that run a dense FFN (deepseek2, glm4moe). */
  readonly nLeadingDense?: number;
  /** Shared experts per MoE layer, each nFfExp wide (deepseek2, glm4moe: nFfShexp = count × nFfExp). */
  readonly nExpertShared?: number;
  /** Grouped routing (DeepSeek V3): the experts in this many groups, tokens routed within nGroupUsed of them. */
  readonly nExpertGroups?: number;
  readonly nGroupUsed?: number;
  /** Sliding-window attention on every other layer (gpt-oss), in tokens. */
  readonly slidingWindow?: number;
  /** Multi-head latent attention (deepseek2). */
  readonly mla?: MlaShape;
  /** Gated delta-net (linear attention) layers between full attention ones (qwen35moe). */
  readonly linearAttn?: LinearAttnShape;
  /** Sliding-window layers with heads of their own beside full ones (gemma4). */
  readonly iswa?: IswaShape;
}

/**
 * Qwen3.5's hybrid attention: every fullAttnInterval-th layer full (gated) attention, the others
 * a gated delta net of nKHeads query/key heads and nVHeads value heads, each stateSize wide.
 */
export interface LinearAttnShape {
  readonly convKernel: number;
  readonly stateSize: number;
  readonly nKHeads: number;
  readonly nVHeads: number;
  readonly fullAttnInterval: number;
}

/**
 * Gemma 4's interleaved attention: every fullEvery-th layer full attention with wider heads
 * (headDimFull) and fewer KV heads (nHeadKvFull); the others a window of slidingWindow tokens
 * with the shape's headDim and nHeadKv.
 */
export interface IswaShape {
  readonly slidingWindow: number;
  readonly fullEvery: number;
  readonly headDimFull: number;
  readonly nHeadKvFull: number;
  readonly ropeFreqBaseSwa: number;
  readonly finalLogitSoftcap: number;
}

/** DeepSeek's multi-head latent attention: low-rank Q (0: a plain wq) and KV, a roped part of each head. */
export interface MlaShape {
  readonly qLoraRank: number;
  readonly kvLoraRank: number;
  readonly ropeDim: number;
  readonly nopeDim: number;
  readonly vDim: number;
}

export type ShapeOverrides = Partial<
  Pick<ModelShape, 'nEmbd' | 'nLayer' | 'nHead' | 'nHeadKv' | 'nFf' | 'nCtxTrain' | 'tieEmbeddings' | 'nExpert' | 'nExpertUsed' | 'nFfExp' | 'nFfShexp' | 'routerSkew'>
>;

/** Bad options (unknown arch/type, shapes that cannot exist): the CLI maps it to exit 2. */
export class SynthInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SynthInputError';
  }
}
