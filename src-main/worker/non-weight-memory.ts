// What the stream schedule's budget counts besides weights (the worker's side of the plan's
// fixed costs): the non-weight memory this process has charged at load, and what it will charge
// later — the compute buffers llama.cpp reserved, serving's and a draft's growth, page tables.
import { statSync } from 'node:fs';
import { loadAddon, type NativeContext } from '../native/addon.js';
import { openOwnGroup } from '../supervisor/own-group.js';
import { readProcStats } from '../node/proc-stats.js';

/** Non-weight memory charged after load: the process's own growth while it runs (measured: −10 to +4 MiB over a run). */
export const NON_WEIGHT_GROWTH_BYTES = 4 * 1024 * 1024;
/** Page tables of the model's mapping: 8 B per 4 KiB page. */
export const PAGE_TABLE_FRACTION = 0.002;
/**
 * Serving several sequences charges more after load: each request's sampling scratch (a
 * candidate list of 12 B per vocabulary entry, allocated on the decode thread) and the host
 * traffic of concurrent token streams (measured on a 128k-vocabulary model with 4 sequences:
 * +6 MiB on the decode thread's heap, +6 MiB of the worker's own heap and JS pages).
 */
export function servingGrowthBytes(parallel: number, nVocab: number): number {
  return parallel > 1 ? parallel * (nVocab * 16 + (1 << 20)) + 8 * 1024 * 1024 : 0;
}

/**
 * A draft's verify passes ask for logits at up to max+1 positions: the output buffer grows to
 * hold them on the first such pass, and sampling makes a candidate list of the vocabulary.
 */
export function draftGrowthBytes(draftMax: number | null, nVocab: number): number {
  return draftMax === null ? 0 : (draftMax + 1) * nVocab * 4 + nVocab * 16 + 2 * 1024 * 1024;
}

/** Non-weight memory this process has charged so far. */
export function measureNonWeight(files: string[]): { bytes: number; source: string } {
  const group = openOwnGroup();
  const usage = group?.usage() ?? null;
  if (usage !== null) {
    const cached = files.reduce((s, f) => s + (loadAddon().fileResident(f, [[0, statSync(f).size]])[0] ?? 0), 0);
    // Model pages another group faulted in (a run before this one, the upload that wrote the
    // file) are cached but not charged here: subtracting them would take this process's own
    // memory for weights. Its anonymous memory is always charged here, so it bounds the figure.
    const anon = readProcStats().rssAnonBytes ?? 0;
    const charged = usage - cached;
    return charged >= anon
      ? { bytes: Math.max(0, charged), source: 'memory group charge − model pages in the page cache, at load' }
      : { bytes: anon, source: 'anonymous RSS at load (model pages cached outside the memory group)' };
  }
  return { bytes: readProcStats().rssAnonBytes ?? 0, source: 'anonymous RSS at load (not capped)' };
}

/** The compute buffers llama.cpp reserved in host memory (null where it reports none). */
export function hostComputeBytes(ctx: NativeContext): number | null {
  const host = loadAddon().memoryBreakdown(ctx).filter((b) => b.host);
  return host.length > 0 ? host.reduce((s, b) => s + b.compute, 0) : null;
}
