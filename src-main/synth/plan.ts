// Pure planning of a synthetic model: shape (preset + overrides, validated), metadata, and
// every tensor with its ggml type and init distribution. Nothing here touches the disk.
import { GgufValueType, ggmlTypeById, ggmlTypeByName } from '../shared/gguf/ggml-types.js';
import type { TypedKv, WriterKv, WriterTensor } from '../shared/gguf/writer-types.js';
import { type ArchTensor, archHparams, archTensors, type TensorRole } from './arch.js';
import { TOOLS_CHATML_TEMPLATE, fallbackChatTemplate } from './chat-templates.js';
import type { Init } from './gen-common.js';
import { PRESET_TABLE } from './presets.js';
import { ARCHS, type ArchName, MOE_ARCHS, type ModelShape, PRESETS, type PresetName, SHEXP_WIDTH_ARCHS, type ShapeOverrides, SynthInputError, WEIGHT_TYPES, type WeightType } from './shape.js';
import type { VocabKvs } from './vocab.js';
import { DEFAULT_ROUTER_SKEW, MAX_ROUTER_SKEW, expertRanks, routerRowScale } from '../shared/moe/routing-model.js';
import { layerOf } from '../shared/gguf/model-view.js';

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
  /** true: the tool-calling ChatML template (TOOLS_CHATML_TEMPLATE) in place of any other. */
  readonly toolTemplate?: boolean;
  /** A template of the caller's own (Jinja text) in place of any other: tests of hostile or unusual templates. */
  readonly chatTemplateText?: string;
}

/** llama_ftype of a file whose matrices are all of one type. */
const FILE_TYPE: Record<WeightType, number> = { F32: 0, F16: 1, Q4_0: 2, Q8_0: 7, Q4_K: 14, MXFP4: 38 };

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

/** The presets an architecture has (the MoE architectures have fewer). */
export function presetsOf(arch: ArchName): PresetName[] {
  return PRESETS.filter((p) => PRESET_TABLE[arch][p] !== undefined);
}

export function resolveShape(arch: ArchName, preset: PresetName, o: ShapeOverrides = {}): ModelShape {
  const base = PRESET_TABLE[arch][preset];
  if (!base) throw new SynthInputError(`architecture '${arch}' has no preset '${preset}' (choose ${presetsOf(arch).join(', ')})`);
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
  if (base.headDim === undefined && shape.nEmbd % shape.nHead !== 0) throw new SynthInputError(`embedding width ${shape.nEmbd} is not a multiple of the head count ${shape.nHead}`);
  if (shape.nHead % shape.nHeadKv !== 0) throw new SynthInputError(`head count ${shape.nHead} is not a multiple of the KV head count ${shape.nHeadKv}`);
  if (arch === 'gptneox' && shape.nHeadKv !== shape.nHead) throw new SynthInputError('gptneox has no grouped-query attention: KV heads must equal heads');
  const headDim = base.headDim ?? shape.nEmbd / shape.nHead;
  if (headDim % 2 !== 0) throw new SynthInputError(`head size ${headDim} must be even for RoPE`);
  // Pythia rotates a quarter of each head (rotary_pct 0.25); llama and qwen2 all of it.
  // GLM-4.5 rotates half of each head; DeepSeek's MLA a part of its own (mla.ropeDim).
  // Qwen3.5 a quarter of each head; Gemma 4 writes its full layers' head size (rope_freqs picks the pairs).
  const ropeDim =
    arch === 'gptneox' ? Math.max(2, 2 * Math.floor(headDim / 8)) : arch === 'glm4moe' ? headDim / 2 : arch === 'qwen35moe' ? headDim / 4 : (base.iswa?.headDimFull ?? base.mla?.ropeDim ?? headDim);
  return { ...shape, ropeDim, headDim, ...resolveExperts(arch, base, o, shape.nFf) };
}

type ExpertShape = Pick<ModelShape, 'nExpert' | 'nExpertUsed' | 'nFfExp' | 'nFfShexp' | 'routerSkew'>;

/** The mixture-of-experts part of a shape: none for a dense model, validated for an MoE. */
function resolveExperts(arch: ArchName, base: Partial<ModelShape>, o: ShapeOverrides, nFf: number): ExpertShape {
  const moeArch = MOE_ARCHS.includes(arch);
  if (!moeArch && arch !== 'llama') {
    for (const [k, flag] of [['nExpert', 'experts'], ['nExpertUsed', 'experts-used'], ['nFfExp', 'expert-ff'], ['nFfShexp', 'shared-ff'], ['routerSkew', 'router-skew']] as const)
      if (o[k] !== undefined) throw new SynthInputError(`--${flag}: ${arch} has no mixture-of-experts layout (use llama or ${MOE_ARCHS.join(', ')})`);
    return { nExpert: 0, nExpertUsed: 0, nFfExp: 0, nFfShexp: 0, routerSkew: 0 };
  }
  const nExpert = o.nExpert ?? base.nExpert ?? 0;
  if (nExpert === 0) {
    if (o.nExpertUsed !== undefined || o.routerSkew !== undefined) throw new SynthInputError('--experts-used and --router-skew need --experts N (a mixture of experts)');
    if (o.nFfExp !== undefined || o.nFfShexp !== undefined) throw new SynthInputError('--expert-ff and --shared-ff need a mixture of experts');
    return { nExpert: 0, nExpertUsed: 0, nFfExp: 0, nFfShexp: 0, routerSkew: 0 };
  }
  if (arch === 'llama' && o.nFfExp !== undefined) throw new SynthInputError("--expert-ff: llama's experts are --ff wide (the Mixtral layout has no separate expert width)");
  const ownShexpWidth = SHEXP_WIDTH_ARCHS.includes(arch);
  if (!ownShexpWidth && o.nFfShexp !== undefined) throw new SynthInputError(`--shared-ff: ${arch} has no shared expert of its own width (${SHEXP_WIDTH_ARCHS.join(' and ')} have; deepseek2's and glm4moe's are as wide as a routed one)`);
  const nExpertUsed = o.nExpertUsed ?? Math.min(base.nExpertUsed ?? 2, nExpert);
  const nFfExp = arch === 'llama' ? nFf : (o.nFfExp ?? base.nFfExp ?? 0);
  const nFfShexp = ownShexpWidth ? (o.nFfShexp ?? base.nFfShexp ?? 0) : nFfExp * (base.nExpertShared ?? 0);
  const routerSkew = o.routerSkew ?? DEFAULT_ROUTER_SKEW;
  if (!Number.isSafeInteger(nExpert) || nExpert < 1 || nExpert > 1024) throw new SynthInputError(`expert count must be an integer 1..1024 (llama.cpp's limit), got ${nExpert}`);
  if (!Number.isSafeInteger(nExpertUsed) || nExpertUsed < 1 || nExpertUsed > nExpert) throw new SynthInputError(`experts used per token must be an integer 1..${nExpert} (the expert count), got ${nExpertUsed}`);
  if (!Number.isSafeInteger(nFfExp) || nFfExp <= 0) throw new SynthInputError(`expert feed-forward width must be a positive integer, got ${nFfExp}`);
  if (ownShexpWidth && (!Number.isSafeInteger(nFfShexp) || nFfShexp <= 0)) throw new SynthInputError(`shared expert width must be a positive integer, got ${nFfShexp}`);
  if (!(Number.isFinite(routerSkew) && routerSkew >= 0 && routerSkew <= MAX_ROUTER_SKEW)) throw new SynthInputError(`router skew must be a number 0..${MAX_ROUTER_SKEW} (0: uniform routing), got ${routerSkew}`);
  const groups = base.nExpertGroups ?? 0;
  if (groups > 1 && nExpert % groups !== 0) throw new SynthInputError(`expert count ${nExpert} must be a multiple of the ${groups} expert groups`);
  if (groups > 1 && nExpertUsed > (nExpert / groups) * (base.nGroupUsed ?? 0)) throw new SynthInputError(`experts used per token (${nExpertUsed}) must fit in the ${base.nGroupUsed} groups searched`);
  return { nExpert, nExpertUsed, nFfExp, nFfShexp, routerSkew };
}

function largestDivisorAtMost(n: number, limit: number): number {
  for (let d = Math.min(n, limit); d > 1; d--) if (n % d === 0) return d;
  return 1;
}

const F32_ROLES: readonly TensorRole[] = ['router', 'norm', 'normBias', 'bias', 'residualBias', 'conv', 'expertScale'];

/** Norms, biases, routers, convolutions and constants stay F32 (as llama.cpp's quantizer keeps them); MXFP4 files hold their other matrices in Q8_0. */
function tensorType(t: ArchTensor, type: WeightType): WeightType {
  if (t.dims.length === 1 || F32_ROLES.includes(t.role) || t.constant !== undefined) return 'F32';
  if (type === 'MXFP4' && !/_exps\.weight$/.test(t.name)) return 'Q8_0';
  return type;
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
function initFor(role: TensorRole, dims: readonly number[], shape: ModelShape, name: string, seed: number): Init {
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
    case 'conv':
      return { kind: 'normal', std: 1 / Math.sqrt(dims[0] as number) };
    case 'expertScale':
      // Gemma 4's per-expert output scales: near 1, each expert its own.
      return { kind: 'normal', std: 0.25, mean: 1 };
    case 'router': {
      // Row j is expert j's logit weights; its scale follows the expert's popularity rank in
      // this layer, so the routing is skewed as trained routers are (shared/moe/routing-model.ts).
      const ranks = expertRanks(shape.nExpert, seed, layerOf(name) ?? 0);
      return { kind: 'rows', std: 1 / Math.sqrt(dims[0] as number), rowLength: dims[0] as number, rowScale: ranks.map((r) => routerRowScale(r, shape.routerSkew)) };
    }
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
    ['attention width (heads × head size)', shape.headDim * shape.nHead],
    ...(shape.nExpert > 0 && arch !== 'llama' ? [['expert feed-forward width', shape.nFfExp] as const] : []),
    ...(shape.nFfShexp > 0 ? [['shared expert width', shape.nFfShexp] as const] : []),
  ] as const) {
    if (n % info.blockSize !== 0) throw new SynthInputError(`${what} ${n} is not a multiple of ${info.blockSize}, the block size of ${type}`);
  }
  if (type === 'MXFP4' && shape.nExpert === 0) throw new SynthInputError('MXFP4 is the type of routed experts: it needs a mixture of experts');
  const nVocab = vocab.nVocab;
  const tensors: PlannedTensor[] = archTensors(arch, shape, nVocab).map((t) => {
    const typeId = typeIdOf(tensorType(t, type));
    const block = (ggmlTypeById(typeId) as { blockSize: number }).blockSize;
    if ((t.dims[0] as number) % block !== 0) throw new SynthInputError(`${t.name}: its rows of ${t.dims[0]} are not a multiple of ${block}, the block size of ${type}`);
    const init: Init = t.constant !== undefined ? { kind: 'const', value: t.constant } : initFor(t.role, t.dims, shape, t.name, input.seed);
    return { name: t.name, dims: t.dims, role: t.role, typeId, init };
  });
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
    // What the routers were made with: the planner reads it as this model's routing statistics.
    ...(shape.nExpert > 0 ? [{ key: 'ramforge.synth.router_skew', type: GgufValueType.FLOAT32, value: shape.routerSkew }] : []),
    ...(input.chatTemplate === false || input.toolTemplate || input.chatTemplateText !== undefined ? vocab.kv.filter((k) => k.key !== 'tokenizer.chat_template') : vocab.kv),
  ];
  if (input.chatTemplateText !== undefined) kv.push(str('tokenizer.chat_template', input.chatTemplateText));
  else if (input.toolTemplate) kv.push(str('tokenizer.chat_template', TOOLS_CHATML_TEMPLATE));
  else if (input.chatTemplate !== false && !vocab.hasChatTemplate) kv.push(str('tokenizer.chat_template', fallbackChatTemplate(vocab.name)));
  return { arch, shape, nVocab, kv, tensors, params };
}
