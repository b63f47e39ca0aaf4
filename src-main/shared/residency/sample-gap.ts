// How often the worker samples residency while a model runs. Pure.
export const MIN_SAMPLE_GAP_MS = 50;
const MAX_SAMPLE_GAP_MS = 1000;
/** Sampling takes at most 1/SAMPLE_COST_SHARE of the time. */
const SAMPLE_COST_SHARE = 40;

/**
 * The gap after a sample that took `costMs`: a mincore pass over tens of GiB of unmapped pages
 * takes tens of milliseconds, and sampling it every 50 ms took a fifth of a core from a 2-core
 * machine's decode.
 */
export function sampleGapMs(costMs: number): number {
  return Math.min(MAX_SAMPLE_GAP_MS, Math.max(MIN_SAMPLE_GAP_MS, costMs * SAMPLE_COST_SHARE));
}
