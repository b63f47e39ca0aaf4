// The cap sweep's cases (pure): seeded random shapes, run settings and caps that hold the product
// to its promise — a run under an enforced cap either completes with no OOM kill or is refused
// before anything loads, naming a cap that then runs. Case `i` of seed `s` is always the same
// case, so a failure is reproduced by its seed and index alone.
import { mulberry32, pick, type Rand } from '../seeded-random.js';

export type SweepArch = 'llama' | 'qwen2' | 'gptneox' | 'qwen3moe' | 'qwen2moe' | 'mixtral';
export type CapKind = 'far-below' | 'just-below' | 'at-minimum' | 'between' | 'above-full';

export const SWEEP_ARCHS: readonly SweepArch[] = ['llama', 'qwen2', 'gptneox', 'qwen3moe', 'qwen2moe', 'mixtral'];
export const CAP_KINDS: readonly CapKind[] = ['far-below', 'just-below', 'at-minimum', 'between', 'above-full'];
const TYPES = ['Q4_0', 'Q8_0', 'Q4_K', 'F16'] as const;
/** Model files above this are made with fewer layers: a case should take seconds, not minutes. */
export const SWEEP_MAX_FILE_BYTES = 384 * 1024 * 1024;

export interface SweepModel {
  readonly arch: SweepArch;
  readonly layers: number;
  readonly embd: number;
  readonly heads: number;
  readonly kvHeads: number;
  readonly ff: number;
  readonly type: (typeof TYPES)[number];
  /** Mixtures of experts: experts per layer, used per token, one expert's width. */
  readonly experts?: { readonly count: number; readonly used: number; readonly ff: number };
}

export interface SweepCase {
  readonly seed: number;
  readonly index: number;
  readonly model: SweepModel;
  /** Run settings left out are chosen by the product, as for a user who gives none. */
  readonly ctx?: number;
  readonly batch?: number;
  readonly parallel?: number;
  /** A one-layer draft made from the model itself (dense models only). */
  readonly draft: boolean;
  /** Through `serve --api` with concurrent requests instead of `run`. */
  readonly serve: boolean;
  /** With `serve`: an embeddings request beside the chat requests. */
  readonly embeddings: boolean;
  readonly cap: { readonly kind: CapKind; /** Where in the kind's range, 0..1. */ readonly at: number };
}

/** Bytes per weight of each type (block overheads included). */
const TYPE_BYTES: Record<SweepModel['type'], number> = { Q4_0: 18 / 32, Q8_0: 34 / 32, Q4_K: 144 / 256, F16: 2 };

/** Vocabulary sizes of the tokenizers synth gives each architecture's small preset. */
const VOCAB: Record<SweepArch, number> = { llama: 32000, mixtral: 32000, gptneox: 50277, qwen2: 151936, qwen3moe: 151936, qwen2moe: 151936 };

/** About what the model file holds: the layers' matrices, the embeddings and the head. */
export function approxModelBytes(m: SweepModel): number {
  const headDim = m.embd / m.heads;
  const attn = m.embd * headDim * (2 * m.heads + 2 * m.kvHeads);
  const ffn = m.experts ? 3 * m.embd * m.experts.ff * m.experts.count + (m.arch === 'qwen2moe' ? 3 * m.embd * m.ff : 0) : 3 * m.embd * m.ff;
  return (m.layers * (attn + ffn) + 2 * VOCAB[m.arch] * m.embd) * TYPE_BYTES[m.type];
}

function sweepModel(r: Rand): SweepModel {
  const arch = pick(r, SWEEP_ARCHS);
  // 2..80 layers, small counts as likely as large ones (log-uniform).
  const layers = Math.max(2, Math.min(80, Math.round(Math.exp(Math.log(2) + r() * (Math.log(80) - Math.log(2))))));
  const embd = pick(r, [256, 512, 768, 1024]);
  const heads = embd / 64;
  const kvHeads = arch === 'gptneox' ? heads : pick(r, [heads, Math.max(1, heads / 2), Math.max(1, heads / 4)].filter((k) => Number.isInteger(k)));
  const ff = 256 * Math.round((pick(r, [2, 2.75, 3, 4]) * embd) / 256);
  const type = pick(r, TYPES);
  const moe = arch === 'qwen3moe' || arch === 'qwen2moe' || arch === 'mixtral';
  const count = pick(r, [4, 8, 16, 32]);
  const experts = moe ? { count, used: Math.min(count, pick(r, [1, 2, 4])), ff: arch === 'mixtral' ? ff : pick(r, [256, 512]) } : undefined;
  return fitFileSize({ arch, layers, embd, heads, kvHeads, ff, type, ...(experts ? { experts } : {}) });
}

/** Fewer layers, then a 4-bit type, then fewer experts, until the file is at most SWEEP_MAX_FILE_BYTES. */
function fitFileSize(model: SweepModel): SweepModel {
  let m = model;
  const big = (x: SweepModel) => approxModelBytes(x) > SWEEP_MAX_FILE_BYTES;
  while (m.layers > 2 && big(m)) m = { ...m, layers: Math.max(2, Math.floor(m.layers * 0.8)) };
  // A wide vocabulary at F16 is too large even with two layers; so are 32 wide Mixtral experts.
  if (big(m)) m = { ...m, type: 'Q4_0' };
  while (m.experts && m.experts.count > 4 && big(m)) m = { ...m, experts: { ...m.experts, count: m.experts.count / 2, used: Math.min(m.experts.used, m.experts.count / 2) } };
  return m;
}

/** Case `index` of the sweep seeded `seed`. */
export function sweepCase(seed: number, index: number): SweepCase {
  const r = mulberry32((seed * 0x9e3779b1 + index * 0x85ebca77) >>> 0);
  const model = sweepModel(r);
  const dense = !model.experts;
  const ctx = r() < 0.5 ? undefined : pick(r, [256, 512, 1024, 2048]);
  const batch = r() < 0.5 ? undefined : pick(r, [8, 32, 128, 512]);
  const parallel = r() < 0.7 ? undefined : pick(r, [2, 4]);
  const serve = r() < 0.2;
  const draft = dense && !serve && parallel === undefined && r() < 0.2;
  const embeddings = serve && r() < 0.5;
  const cap = { kind: pick(r, CAP_KINDS), at: r() };
  return { seed, index, model, ...(ctx ? { ctx } : {}), ...(batch ? { batch } : {}), ...(parallel ? { parallel } : {}), draft, serve, embeddings, cap };
}

/** The cap a case runs under, from the smallest cap the plan names and the cap of full residency. */
export function capBytesFor(c: SweepCase, minimum: number, full: number): number {
  const top = Math.max(full, minimum);
  const at = c.cap.at;
  const bytes = {
    'far-below': minimum * (0.3 + 0.4 * at),
    'just-below': minimum * (0.9 + 0.09 * at),
    'at-minimum': minimum,
    between: minimum + at * (top - minimum),
    'above-full': top * (1.05 + 0.25 * at),
  }[c.cap.kind];
  return Math.max(1024 * 1024, Math.round(bytes));
}

/** `synth` flags that write the case's model (the draft is made from it with --draft-of). */
export function synthArgs(m: SweepModel): string[] {
  const arch = m.arch === 'mixtral' ? 'llama' : m.arch;
  const a = ['--arch', arch, '--preset', 'small', '--layers', String(m.layers), '--embd', String(m.embd), '--heads', String(m.heads), '--kv-heads', String(m.kvHeads), '--ff', String(m.ff), '--type', m.type];
  if (m.experts) {
    a.push('--experts', String(m.experts.count), '--experts-used', String(m.experts.used));
    if (arch !== 'llama') a.push('--expert-ff', String(m.experts.ff));
    if (arch === 'qwen2moe') a.push('--shared-ff', String(m.ff));
  }
  return a;
}

/** The run settings a case gives (the rest chosen by the product). */
export function runSettingArgs(c: SweepCase): string[] {
  return [...(c.ctx ? ['--ctx', String(c.ctx)] : []), ...(c.batch ? ['--batch', String(c.batch)] : []), ...(c.parallel ? ['--parallel', String(c.parallel)] : [])];
}

/** A short name for the summary's "by shape" rows. */
export function shapeName(m: SweepModel): string {
  const moe = m.experts ? ` ${m.experts.count}x${m.experts.used}e` : '';
  return `${m.arch} ${m.layers}L ${m.embd}w${moe} ${m.type}`;
}
