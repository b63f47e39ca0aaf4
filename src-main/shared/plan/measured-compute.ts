// The compute term of a plan, measured instead of modelled: the decode time per token of the very
// schedule the plan is for (the budget, the shape, the routing), run on the model's shadow (its
// header with the tensor data a hole that reads as zeros: node/shadow-model.ts), so it waits for
// no storage. What each schedule is measured for, and how a plan reads it back, are said here;
// the measuring and the cache file are I/O (cli/shadow-compute.ts, node/compute-cache.ts). Pure.
import type { RunSettings } from '../settings/run-settings.js';
import type { RunShape } from '../settings/run-shape.js';

export interface MeasuredCompute {
  /** Seconds a decoded token took on the shadow. */
  readonly secondsPerToken: number;
  /** How and when it was measured, for the plan's formula. */
  readonly source: string;
}

/** What a schedule's compute depends on, beside the model file: one measurement per distinct value. */
export function scheduleKey(s: RunSettings, shape: RunShape, ramBytes: number): string {
  return JSON.stringify({
    ram: ramBytes,
    ctx: shape.ctx,
    batch: shape.batch,
    threads: shape.threads,
    parallel: s.parallel,
    trace: s.routingTrace,
    expertsUsed: s.expertsUsed,
    skipCold: s.skipColdExperts,
    // Stream runs repack nothing unless asked (--repack): null and false are one layout.
    repack: s.repack === true,
    readAhead: s.expertReadAhead,
    vram: s.vramBytes,
    gpu: s.gpu,
    rpc: s.rpc,
  });
}

/** A schedule's measured compute, where one was measured; null: the plan models it. */
export type ComputeLookup = (scheduleKey: string) => MeasuredCompute | null;
