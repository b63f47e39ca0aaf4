// Pure: the decode phase of a run over time, as the stream schedule is judged by it — how
// resident the locked weights stayed, how fast storage was read, how often the cap was hit.
// Only decode samples count: load and prompt fill memory on purpose, decode must not press it.
import type { ResidencySample } from '../../src-main/shared/residency-types.js';

export interface FractionPoint {
  tS: number;
  /** Resident share of the locked weights, 0..1. */
  fraction: number;
}

export interface RatePoint {
  tS: number;
  bytesPerS: number;
}

export interface HitsPoint {
  tS: number;
  /** Limit hits since the first decode sample. */
  hits: number;
}

const decode = (samples: readonly ResidencySample[]) => samples.filter((s) => s.phase === 'decode');

/** Resident share of the locked weights at each decode sample that measured it. */
export function pinnedResidentSeries(samples: readonly ResidencySample[]): FractionPoint[] {
  return decode(samples)
    .filter((s) => s.pinnedResident !== null && s.pinnedBytes !== null && s.pinnedBytes > 0)
    .map((s) => ({ tS: s.tMs / 1000, fraction: Math.min(1, (s.pinnedResident as number) / (s.pinnedBytes as number)) }));
}

/**
 * Storage read rate during decode. Samples come every ~50 ms, too close for a steady rate, so
 * each point spans at least `minDtMs` of reads.
 */
export function readRateSeries(samples: readonly ResidencySample[], minDtMs = 250): RatePoint[] {
  const out: RatePoint[] = [];
  let base: ResidencySample | null = null;
  for (const s of decode(samples)) {
    if (s.readBytes === null) continue;
    // A counter that went down belongs to a new worker: start over from it.
    if (base === null || s.readBytes < (base.readBytes as number)) {
      base = s;
      continue;
    }
    const dt = s.tMs - base.tMs;
    if (dt < minDtMs) continue;
    out.push({ tS: s.tMs / 1000, bytesPerS: ((s.readBytes - (base.readBytes as number)) * 1000) / dt });
    base = s;
  }
  return out;
}

/** Cumulative limit hits since decode began (the group's counter also counts load's hits). */
export function limitHitsSeries(samples: readonly ResidencySample[]): HitsPoint[] {
  const d = decode(samples).filter((s) => s.limitHits !== null);
  const first = d[0]?.limitHits ?? 0;
  return d.map((s) => ({ tS: s.tMs / 1000, hits: (s.limitHits as number) - first }));
}
