// Context length, micro-batch and threads for a run when the user did not fix them: chosen to
// leave the cap as much room for weights as the run can spare, each choice with its reason.
// Pure: the caller supplies the machine's physical core count.
import type { DraftPlanInput } from '../plan/plan-types.js';
import type { ModelView } from '../gguf/model-view.js';
import { planMemory } from '../plan/plan.js';
import { computeBufferBytes, kvBytesForLayer } from '../plan/estimates.js';
import { DEFAULT_CTX, DEFAULT_KV_ELEMENT_BYTES, MAX_UBATCH, microBatch, type RunSettings } from './run-settings.js';

export interface RunShape {
  /** Context per sequence. */
  ctx: number;
  /** Micro-batch (n_ubatch); the prompt batch equals it. */
  batch: number;
  threads: number;
  /** One line per choice: what was chosen and why. */
  reasons: string[];
}

export interface ShapeInput {
  view: ModelView;
  /** `serving`: the run serves an API, and its plan budgets the embeddings context. */
  settings: Pick<RunSettings, 'ctx' | 'batch' | 'threads' | 'ramBytes' | 'vramBytes' | 'prefetchDepth'> & { parallel?: number; serving?: boolean };
  physicalCores: number;
  /** A draft model's share of the budget for a given context (the shape then makes room for it). */
  draft?: (ctx: number) => DraftPlanInput;
}

/** The context kept wherever the cap allows it. */
export const MIN_DEFAULT_CTX = 2048;
/** With several sequences each one's context may go this low before the run is refused room. */
export const MIN_PARALLEL_CTX = 512;
export const MIN_UBATCH = 32;
/** Below MIN_UBATCH only when nothing else makes the run fit. */
export const MIN_SHRUNK_UBATCH = 8;
/** Shares of the cap the KV cache and the compute buffer may take before they are shrunk. */
export const KV_SHARE = 1 / 8;
export const COMPUTE_SHARE = 1 / 16;

const MiB = 1024 * 1024;
const mib = (b: number) => `${(b / MiB).toFixed(1)} MiB`;

/** KV cache bytes of one sequence of `ctx` tokens (DEFAULT_KV_ELEMENT_BYTES a key or value element). */
export function kvBytes(view: ModelView, ctx: number): number {
  const headDim = view.headDim ?? 0;
  const valueDim = view.valueDim ?? headDim;
  let total = 0;
  view.layers.forEach((_, i) => {
    const kv = view.headCountKvByLayer?.[i] ?? view.headCountKv ?? 0;
    total += kvBytesForLayer(kv, headDim, valueDim, ctx, DEFAULT_KV_ELEMENT_BYTES).value as number;
  });
  return total;
}

function computeBytes(view: ModelView, ctx: number, ubatch: number): number {
  const nEmbd = view.embeddingLength ?? 0;
  return computeBufferBytes(view.vocabSize ?? 0, view.headCount ?? 0, nEmbd, view.feedForwardLength ?? 4 * nEmbd, ctx, ubatch).value as number;
}

/** The plan for this shape does not refuse to run (always true without a budget). */
export function runnable(view: ModelView, s: ShapeInput['settings'], ctx: number, ubatch: number, draft?: ShapeInput['draft']): boolean {
  if (s.ramBytes === null) return true;
  try {
    const p = planMemory(view, {
      ramBytes: s.ramBytes,
      vramBytes: s.vramBytes ?? undefined,
      ctx,
      ubatch,
      diskBandwidthBytesPerS: 1e9,
      prefetchDepth: s.prefetchDepth,
      parallel: s.parallel ?? 1,
      ...(s.serving ? { serving: true } : {}),
      ...(draft ? { draft: draft(ctx) } : {}),
    });
    return p.verdict !== 'cannot-run';
  } catch {
    return true;
  }
}

function pow2AtLeast(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

export function chooseRunShape(i: ShapeInput): RunShape {
  const { view, settings: s } = i;
  const reasons: string[] = [];
  const threads = s.threads ?? Math.max(1, i.physicalCores);
  reasons.push(s.threads !== null ? `threads ${threads} (--threads)` : `threads ${threads} (the machine's physical cores)`);
  const trained = view.contextLength ?? DEFAULT_CTX;
  const cap = s.ramBytes;
  const n = Math.max(1, s.parallel ?? 1);
  const floorCtx = n > 1 ? MIN_PARALLEL_CTX : MIN_DEFAULT_CTX;

  let ubatch: number;
  if (s.batch !== null) {
    ubatch = microBatch(s.batch);
  } else if (cap === null) {
    ubatch = MAX_UBATCH;
  } else {
    ubatch = MAX_UBATCH;
    while (ubatch > MIN_UBATCH && computeBytes(view, Math.min(trained, DEFAULT_CTX), ubatch) > cap * COMPUTE_SHARE) ubatch /= 2;
  }

  let ctx: number;
  let ctxWhy: string;
  if (s.ctx !== null) {
    ctx = s.ctx;
    ctxWhy = '--ctx';
  } else {
    ctx = Math.min(trained, DEFAULT_CTX);
    ctxWhy = trained < DEFAULT_CTX ? "the model's trained context" : `the default ${DEFAULT_CTX}`;
    if (cap !== null) {
      while (ctx > floorCtx && n * kvBytes(view, ctx) > cap * KV_SHARE) {
        ctx /= 2;
        ctxWhy = n > 1 ? `the KV cache of ${n} sequences stays within 1/8 of the cap` : 'its KV cache stays within 1/8 of the cap';
      }
    }
  }
  // Below the minimum working set, shrink what was not fixed until the run fits: the
  // micro-batch to its floor, then the context, then the micro-batch below its floor (a prompt
  // then takes more passes over the weights, but the run runs; with a draft, never below its
  // verify pass of max+1 positions).
  let ubatchWhy = '';
  if (cap !== null && !runnable(view, s, ctx, ubatch, i.draft)) {
    const verifyPositions = i.draft ? i.draft(ctx).max + 1 : 0;
    const lastFloor = i.draft ? Math.min(MIN_UBATCH, Math.max(MIN_SHRUNK_UBATCH, pow2AtLeast(verifyPositions))) : MIN_SHRUNK_UBATCH;
    for (;;) {
      if (runnable(view, s, ctx, ubatch, i.draft)) break;
      if (s.batch === null && ubatch > MIN_UBATCH) ubatch /= 2;
      else if (s.ctx === null && ctx > 256) {
        ctx /= 2;
        ctxWhy = 'the smallest that runs under the cap';
      } else if (s.batch === null && ubatch > lastFloor) {
        ubatch /= 2;
        ubatchWhy = i.draft ? `the smallest that runs beside the draft: its verify pass needs ${verifyPositions} positions` : 'the smallest that runs under the cap: a prompt takes more passes';
      } else break;
    }
  }
  reasons.push(`ctx ${ctx}${n > 1 ? ` per sequence × ${n}` : ''} (${ctxWhy}; KV cache ${mib(n * kvBytes(view, ctx))})`);
  reasons.push(
    s.batch !== null
      ? `micro-batch ${ubatch} (--batch)`
      : ubatchWhy
        ? `micro-batch ${ubatch} (${ubatchWhy}; compute buffer ${mib(computeBytes(view, ctx, ubatch))})`
        : cap === null
          ? `micro-batch ${ubatch} (llama.cpp's default)`
          : `micro-batch ${ubatch} (compute buffer ${mib(computeBytes(view, ctx, ubatch))} within 1/16 of the cap)`,
  );
  return { ctx, batch: ubatch, threads, reasons };
}
