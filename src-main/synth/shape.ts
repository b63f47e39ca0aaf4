// The shape of a synthetic model and the names users pick from.
export const ARCHS = ['llama', 'qwen2', 'gptneox'] as const;
export type ArchName = (typeof ARCHS)[number];

export const PRESETS = ['tiny', 'small', '1b', '3b', '8b', '20b'] as const;
export type PresetName = (typeof PRESETS)[number];

export const WEIGHT_TYPES = ['F32', 'F16', 'Q8_0', 'Q4_0', 'Q4_K'] as const;
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
}

export type ShapeOverrides = Partial<Pick<ModelShape, 'nEmbd' | 'nLayer' | 'nHead' | 'nHeadKv' | 'nFf' | 'nCtxTrain' | 'tieEmbeddings'>>;

/** Bad options (unknown arch/type, shapes that cannot exist): the CLI maps it to exit 2. */
export class SynthInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SynthInputError';
  }
}
