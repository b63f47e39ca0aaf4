// How many requests to decode together when the user did not say (`ramforge serve --api`
// without --parallel): the most sequences, of 4, 2 and 1, whose KV caches fit the share of the
// budget the run shape gives the KV cache (1/8) at a useful context each, and whose plan still
// runs. More sequences make each streamed weight pass produce more tokens; each one costs a KV
// cache. Pure: the caller supplies the budget (the cap, else the machine's RAM).
import type { ModelView } from '../gguf/model-view.js';
import type { RunSettings } from './run-settings.js';
import { KV_SHARE, MIN_PARALLEL_CTX, chooseRunShape, kvBytes, runnable } from './run-shape.js';
import { DEFAULT_CTX, DRAFT_PARALLEL } from './run-settings.js';

export const PARALLEL_CHOICES = [4, 2, 1] as const;

export interface ParallelChoice {
  parallel: number;
  /** One line: what was chosen and why. */
  reason: string;
}

export interface ParallelInput {
  view: ModelView;
  settings: Pick<RunSettings, 'ctx' | 'batch' | 'threads' | 'vramBytes' | 'prefetchDepth'> & { draft?: string | null; serving?: boolean };
  /** The cap (--ram), else the machine's memory. */
  budgetBytes: number;
  physicalCores: number;
}

const MiB = 1024 * 1024;

export function chooseParallel(i: ParallelInput): ParallelChoice {
  const { view, budgetBytes } = i;
  // Speculative decoding verifies one sequence's drafted tokens per pass: it has no second sequence.
  if (i.settings.draft) return { parallel: DRAFT_PARALLEL, reason: `parallel ${DRAFT_PARALLEL} (a draft model serves one sequence)` };
  const kvBudget = budgetBytes * KV_SHARE;
  // The context a sequence should keep: what the user fixed, else the model's (at most the
  // default), never required to be above MIN_PARALLEL_CTX.
  const natural = i.settings.ctx ?? Math.min(view.contextLength ?? DEFAULT_CTX, DEFAULT_CTX);
  const floor = Math.min(natural, MIN_PARALLEL_CTX);
  for (const n of PARALLEL_CHOICES) {
    if (n === 1) break;
    const settings = { ...i.settings, ramBytes: budgetBytes, parallel: n };
    const shape = chooseRunShape({ view, settings, physicalCores: i.physicalCores });
    const kv = n * kvBytes(view, shape.ctx);
    if (shape.ctx >= floor && kv <= kvBudget && runnable(view, settings, shape.ctx, shape.batch)) {
      return { parallel: n, reason: `parallel ${n} (the KV caches of ${n} sequences of ${shape.ctx} tokens, ${(kv / MiB).toFixed(1)} MiB, fit 1/8 of the ${(budgetBytes / MiB).toFixed(0)} MiB budget)` };
    }
  }
  return { parallel: 1, reason: `parallel 1 (two sequences of at least ${floor} tokens would not fit 1/8 of the ${(budgetBytes / MiB).toFixed(0)} MiB budget)` };
}
