// Pure planning of a synthetic model: shape (preset + overrides, validated), metadata, and
// every tensor with its ggml type and init distribution. Nothing here touches the disk.
import { GgufValueType, ggmlTypeByName } from '../shared/gguf/ggml-types.js';
import type { TypedKv, WriterKv, WriterTensor } from '../shared/gguf/writer-types.js';
import { archHparams, archTensors, type TensorRole } from './arch.js';
import { fallbackChatTemplate } from './chat-templates.js';
import type { Init } from './gen-common.js';
import { PRESET_TABLE } from './presets.js';
import { ARCHS, type ArchName, type ModelShape, PRESETS, type PresetName, type ShapeOverrides, SynthInputError, WEIGHT_TYPES, type WeightType } from './shape.js';
import type { VocabKvs } from './vocab.js';

export interface PlannedTensor extends WriterTensor {
  readonly role: TensorRole;
  readonly init: Init;
}

export interface SynthPlan {
  readonly arch: ArchName;
  readonly shape: ModelShape;
  readonly nVocab: number;
  readonly kv: WriterKv[];
  readonly tensors: PlannedTensor[];
  readonly params: number;
}

export interface PlanInput {
  readonly arch: string;
  readonly preset: string;
  readonly type: string;
  readonly seed: number;
  readonly overrides?: ShapeOverrides;
  readonly name?: string;
  /** false: no tokenizer.chat_template at all, as most base models ship (default true). */
  readonly chatTemplate?: boolean;
}

/** llama_ftype of a file whose matrices are all of one type. */
const FILE_TYPE: Record<WeightType, number> = { F32: 0, F16: 1, Q4_0: 2, Q8_0: 7, Q4_K: 14 };

export function checkArch(arch: string): ArchName {
  if (!(ARCHS as readonly string[]).includes(arch)) throw new SynthInputError(`unknown architecture '${arch}' (choose ${ARCHS.join(', ')})`);
  return arch as ArchName;
}

export function checkPreset(preset: string): PresetName {
  if (!(PRESETS as readonly string[]).includes(preset)) throw new SynthInputError(`unknown preset '${preset}' (choose ${PRESETS.join(', ')})`);
  return preset as PresetName;
}

export function checkType(type: string): WeightType {
  const t = type.toUpperCase();
  if (!(WEIGHT_TYPES as readonly string[]).includes(t)) throw new SynthInputError(`unsupported type '${type}' (choose ${WEIGHT_TYPES.join(', ')})`);
  return t as WeightType;
}

export function resolveShape(arch: ArchName, preset: PresetName, o: ShapeOverrides = {}): ModelShape {
  const base = PRESET_TABLE[arch][preset];
  const nEmbd = o.nEmbd ?? base.nEmbd;
  // Changing the width without naming the heads keeps the preset's head size.
  const nHead = o.nHead ?? (o.nEmbd !== undefined ? Math.max(1, Math.round(nEmbd / (base.nEmbd / base.nHead))) : base.nHead);
  // Keep the preset's query-to-KV head ratio, on a KV head count that divides the head count.
  const defaultKv = arch === 'gptneox' ? nHead : largestDivisorAtMost(nHead, Math.max(1, Math.round(nHead / (base.nHead / base.nHeadKv))));
  const nHeadKv = o.nHeadKv ?? (o.nHead !== undefined || o.nEmbd !== undefined ? defaultKv : base.nHeadKv);
  const shape = {
    ...base,
    nEmbd,
    nHead,
    nHeadKv,
    nLayer: o.nLayer ?? base.nLayer,
    nFf: o.nFf ?? base.nFf,
    nCtxTrain: o.nCtxTrain ?? base.nCtxTrain,
    tieEmbeddings: arch === 'gptneox' ? false : (o.tieEmbeddings ?? base.tieEmbeddings),
  };
  const positive = (n: number, what: string): void => {
    if (!Number.isSafeInteger(n) || n <= 0) throw new SynthInputError(`${what} must be a positive integer, got ${n}`);
  };
  positive(shape.nEmbd, 'embedding width');
  positive(shape.nLayer, 'layer count');
  positive(shape.nHead, 'head count');
  positive(shape.nHeadKv, 'KV head count');
  positive(shape.nFf, 'feed-forward width');
  positive(shape.nCtxTrain, 'training context');
  if (shape.nLayer > 512) throw new SynthInputError(`layer count ${shape.nLayer} is over llama.cpp's limit of 512`);
  if (shape.nEmbd % shape.nHead !== 0) throw new SynthInputError(`embedding width ${shape.nEmbd} is not a multiple of the head count ${shape.nHead}`);
  if (shape.nHead % shape.nHeadKv !== 0) throw new SynthInputError(`head count ${shape.nHead} is not a multiple of the KV head count ${shape.nHeadKv}`);
  if (arch === 'gptneox' && shape.nHeadKv !== shape.nHead) throw new SynthInputError('gptneox has no grouped-query attention: KV heads must equal heads');
  const headDim = shape.nEmbd / shape.nHead;
  if (headDim % 2 !== 0) throw new SynthInputError(`head size ${headDim} must be even for RoPE`);
  // Pythia rotates a quarter of each head (rotary_pct 0.25); llama and qwen2 all of it.
  const ropeDim = arch === 'gptneox' ? Math.max(2, 2 * Math.floor(headDim / 8)) : headDim;
  return { ...shape, ropeDim };
}

function largestDivisorAtMost(n: number, limit: number): number {
  for (let d = Math.min(n, limit); d > 1; d--) if (n % d === 0) return d;
  return 1;
}

function typeIdOf(t: WeightType): number {
  return (ggmlTypeByName(t) as { id: number }).id;
}

/**
 * Init distributions. Linear layers get std 1/sqrt(fan_in), so unit-RMS inputs give unit-RMS
 * outputs (0.0156 at 4096, near the ~0.02 of trained checkpoints). Embeddings get 2/sqrt(n_embd)
 * (0.031 at 4096), which keeps a tied head's logits at std ~2. Layers that write into the
 * residual stream are scaled down by sqrt(2 n_layer) relative to the embedding (GPT-2's
 * residual init): the sum over all blocks is then about as large as the token's own embedding,
 * so the current token still steers the output and greedy decoding does not collapse into one
 * repeated token, as it does when random blocks drown the embedding. (A tied head still tends
 * to repeat: each logit is then a similarity with the token's own embedding. The presets write
 * a separate head for that reason.)
 */
function initFor(role: TensorRole, dims: readonly number[], shape: ModelShape): Init {
  const embStd = 2 / Math.sqrt(shape.nEmbd);
  switch (role) {
    case 'norm':
      return { kind: 'const', value: 1 };
    case 'normBias':
      return { kind: 'const', value: 0 };
    case 'bias':
      return { kind: 'normal', std: 0.02 };
    case 'residualBias':
      // Constant across tokens, so kept well below the embedding: summed over the layers it
      // would otherwise become one fixed direction that outweighs the token.
      return { kind: 'normal', std: (0.1 * embStd) / Math.sqrt(2 * shape.nLayer) };
    case 'embedding':
      return { kind: 'normal', std: embStd };
    case 'residualOut':
      return { kind: 'normal', std: embStd / (Math.sqrt(dims[0] as number) * Math.sqrt(2 * shape.nLayer)) };
    case 'output':
    case 'matrix':
      return { kind: 'normal', std: 1 / Math.sqrt(dims[0] as number) };
  }
}

export function planSynth(input: PlanInput, vocab: VocabKvs): SynthPlan {
  const arch = checkArch(input.arch);
  const preset = checkPreset(input.preset);
  const type = checkType(input.type);
  if (!Number.isSafeInteger(input.seed) || input.seed < 0) throw new SynthInputError(`seed must be a non-negative integer, got ${input.seed}`);
  const shape = resolveShape(arch, preset, input.overrides);
  const info = ggmlTypeByName(type) as { blockSize: number };
  for (const [what, n] of [
    ['embedding width', shape.nEmbd],
    ['feed-forward width', shape.nFf],
  ] as const) {
    if (n % info.blockSize !== 0) throw new SynthInputError(`${what} ${n} is not a multiple of ${info.blockSize}, the block size of ${type}`);
  }
  const nVocab = vocab.nVocab;
  const tensors: PlannedTensor[] = archTensors(arch, shape, nVocab).map((t) => ({
    name: t.name,
    dims: t.dims,
    role: t.role,
    typeId: t.dims.length === 1 ? typeIdOf('F32') : typeIdOf(type),
    init: initFor(t.role, t.dims, shape),
  }));
  const params = tensors.reduce((s, t) => s + t.dims.reduce((a, b) => a * b, 1), 0);

  const str = (key: string, value: string): TypedKv => ({ key, type: GgufValueType.STRING, value });
  const u32 = (key: string, value: number): TypedKv => ({ key, type: GgufValueType.UINT32, value });
  const kv: WriterKv[] = [
    str('general.architecture', arch),
    str('general.name', input.name ?? `ramforge-synth-${arch}-${preset}-${type.toLowerCase()}`),
    str('general.description', 'RAMforge synthetic model: real architecture and tokenizer, random weights'),
    u32('general.file_type', FILE_TYPE[type]),
    u32('general.alignment', 32),
    u32('general.quantization_version', 2),
    ...archHparams(arch, shape, nVocab),
    str('ramforge.synth.preset', preset),
    { key: 'ramforge.synth.seed', type: GgufValueType.UINT64, value: BigInt(input.seed) },
    str('ramforge.synth.vocab', vocab.name),
    ...(input.chatTemplate === false ? vocab.kv.filter((k) => k.key !== 'tokenizer.chat_template') : vocab.kv),
  ];
  if (input.chatTemplate !== false && !vocab.hasChatTemplate) kv.push(str('tokenizer.chat_template', fallbackChatTemplate(vocab.name)));
  return { arch, shape, nVocab, kv, tensors, params };
}
