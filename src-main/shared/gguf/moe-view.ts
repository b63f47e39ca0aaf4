// The mixture-of-experts side of a model (pure): which tensors hold experts, how many experts a
// layer has and a token uses, what one expert costs, and what a token reads. In GGUF an MoE
// layer holds one 3-D tensor per projection (ffn_{gate,up,down}_exps, fused ffn_gate_up_exps,
// optional *_exps biases), expert-major: expert e is the slice at data + e·nb[2], so every
// expert of a tensor is nbytes / n_expert bytes. Shared experts (*_shexp), routers
// (ffn_gate_inp*) and attention run for every token: they are the dense part.
import { GgufValueType } from './ggml-types.js';
import type { GgufHeader } from './reader-types.js';
import { kvInteger, kvIntegerOrArray } from './metadata.js';
import { embdRowReadBytes } from '../settings/token-embd.js';

/** The tensor fields this view reads (a ModelView tensor has them). */
export interface MoeTensorInput {
  readonly name: string;
  readonly dims: readonly number[];
  readonly nbytes: number;
  readonly layer: number | null;
}

export interface MoeLayerView {
  readonly index: number;
  /** This layer's expert tensors (the ones an expert cache holds slices of). */
  readonly expertTensors: string[];
  readonly expertBytes: number;
  /** One expert's slices of every expert tensor of the layer: expert bytes / n_expert. */
  readonly bytesPerExpert: number;
}

export interface MoeView {
  readonly expertCount: number;
  /** Experts each token is routed to (null where the file does not say). */
  readonly expertUsedCount: number | null;
  /** Shared experts every token runs: `expert_shared_count`, else 1 where *_shexp tensors exist. */
  readonly expertSharedCount: number;
  /** Width of one expert (the expert tensors' n_ff_exp). */
  readonly expertFeedForwardLength: number | null;
  /** Layers with expert tensors (a model may lead with dense layers). */
  readonly layers: MoeLayerView[];
  /** The largest layer's bytes per expert. */
  readonly bytesPerExpert: number;
  readonly expertBytes: number;
  /** Every other weight: attention, norms, routers, shared experts, embeddings, output head. */
  readonly denseBytes: number;
  readonly sharedExpertBytes: number;
  /**
   * Weights one decoded token reads: the dense part (token_embd only as one row where the
   * output head is separate) plus the routed experts' slices, per MoE layer.
   */
  readonly activeBytesPerToken: number | null;
  /** The skew a synthetic model's routers were made with (ramforge.synth.router_skew), else null. */
  readonly routerSkew: number | null;
}

const EXPERT_TENSOR = /^blk\.\d+\.ffn_(gate|up|down|gate_up)_exps\.(weight|bias)$/;
const SHARED_EXPERT = /^blk\.\d+\.ffn_(gate|up|down|gate_up)_shexp\.weight$/;

export function isExpertTensor(name: string): boolean {
  return EXPERT_TENSOR.test(name);
}

/** The MoE view of a model, or null for a dense one (no expert tensors). */
export function buildMoeView(h: GgufHeader, arch: string | null, tensors: readonly MoeTensorInput[]): MoeView | null {
  const experts = tensors.filter((t) => t.layer !== null && isExpertTensor(t.name));
  if (experts.length === 0) return null;
  const key = (k: string): string => `${arch}.${k}`;
  const declared = arch ? kvInteger(h, key('expert_count')) : undefined;
  // The expert count is the last dimension of every expert tensor; the key says the same.
  const expertCount = declared ?? experts[0]?.dims[experts[0].dims.length - 1] ?? 0;
  if (!(expertCount > 0)) return null;
  const used = arch ? kvIntegerOrArray(h, key('expert_used_count')) : undefined;
  const expertUsedCount = used === undefined ? null : Array.isArray(used) ? Math.max(0, ...used) : used;
  const sharedTensors = tensors.filter((t) => SHARED_EXPERT.test(t.name));
  const sharedDeclared = arch ? kvInteger(h, key('expert_shared_count')) : undefined;
  const up = experts.find((t) => /\.ffn_(up|gate)_exps\.weight$/.test(t.name));
  // Fused gate and up (qwen35moe, gemma4): one tensor twice as wide as an expert.
  const gateUp = experts.find((t) => /\.ffn_gate_up_exps\.weight$/.test(t.name));
  const ffLength = up ? (up.dims[1] ?? null) : gateUp?.dims[1] !== undefined ? gateUp.dims[1] / 2 : null;

  const byLayer = new Map<number, MoeTensorInput[]>();
  for (const t of experts) byLayer.set(t.layer as number, [...(byLayer.get(t.layer as number) ?? []), t]);
  const layers: MoeLayerView[] = [...byLayer.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([index, ts]) => {
      const bytes = sum(ts.map((t) => t.nbytes));
      return { index, expertTensors: ts.map((t) => t.name), expertBytes: bytes, bytesPerExpert: Math.ceil(bytes / expertCount) };
    });
  const expertBytes = sum(layers.map((l) => l.expertBytes));
  const total = sum(tensors.map((t) => t.nbytes));
  const denseRead = total - expertBytes - embdRowReadBytes(tensors, (t) => t.nbytes);
  const skewEntry = h.kvByKey.get('ramforge.synth.router_skew');
  const routerSkew =
    skewEntry && (skewEntry.type === GgufValueType.FLOAT32 || skewEntry.type === GgufValueType.FLOAT64) && Number.isFinite(skewEntry.value as number) && (skewEntry.value as number) >= 0
      ? // Stored as f32: 0.35 reads back as 0.3499999940…; six decimals is what was written.
        Math.round((skewEntry.value as number) * 1e6) / 1e6
      : null;
  return {
    expertCount,
    expertUsedCount,
    expertSharedCount: sharedDeclared ?? (sharedTensors.length > 0 ? 1 : 0),
    expertFeedForwardLength: ffLength,
    layers,
    bytesPerExpert: Math.max(0, ...layers.map((l) => l.bytesPerExpert)),
    expertBytes,
    denseBytes: total - expertBytes,
    sharedExpertBytes: sum(sharedTensors.map((t) => t.nbytes)),
    activeBytesPerToken: expertUsedCount === null ? null : denseRead + sum(layers.map((l) => Math.min(expertUsedCount, expertCount) * l.bytesPerExpert)),
    routerSkew,
  };
}

function sum(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}
