// Pure derivations from residency samples: the heatmap grid and the chart series.
import type { ResidencyEvent, ResidencyEventKind, ResidencySample } from '../../src-main/shared/residency-types.js';

export interface HeatmapGrid {
  rows: number;
  cols: number;
  /** Row-major [row * cols + col]: resident fraction 0..1, or NaN when unknown. */
  cells: Float32Array;
  /** Time (ms) of each column's sample. */
  tMs: number[];
}

/** Indices of at most `max` samples, evenly spread, always keeping the last one. */
export function pickColumns(n: number, max: number): number[] {
  if (n <= max) return Array.from({ length: n }, (_, i) => i);
  const out: number[] = [];
  for (let c = 0; c < max; c++) out.push(Math.round((c * (n - 1)) / (max - 1)));
  return out;
}

export function heatmapGrid(layerBytes: readonly number[], samples: readonly ResidencySample[], maxCols = 400): HeatmapGrid {
  const rows = Math.max(layerBytes.length, ...samples.map((s) => s.layerResident.length), 0);
  const idx = pickColumns(samples.length, maxCols);
  const cols = idx.length;
  const cells = new Float32Array(rows * cols).fill(Number.NaN);
  idx.forEach((si, c) => {
    const s = samples[si]!;
    for (let r = 0; r < rows; r++) {
      const res = s.layerResident[r];
      const total = layerBytes[r];
      if (res === null || res === undefined || !total) continue;
      cells[r * cols + c] = Math.min(1, Math.max(0, res / total));
    }
  });
  return { rows, cols, cells, tMs: idx.map((i) => samples[i]!.tMs) };
}

export interface BytesPerTokenPoint {
  token: number;
  bytes: number;
}

/**
 * Bytes read from storage per decoded token: at each sample where the token count grew, the
 * reads since the previous such boundary divided by the tokens decoded in between.
 */
export function bytesPerTokenSeries(samples: readonly ResidencySample[]): BytesPerTokenPoint[] {
  const out: BytesPerTokenPoint[] = [];
  let base: ResidencySample | null = null;
  for (const s of samples) {
    if (s.phase !== 'decode' || s.readBytes === null) continue;
    if (base === null) {
      base = s;
      continue;
    }
    if (s.token > base.token) {
      out.push({ token: s.token, bytes: Math.max(0, (s.readBytes - base.readBytes!) / (s.token - base.token)) });
      base = s;
    }
  }
  return out;
}

/** Mean of the measured per-token reads (null when nothing was measured). */
export function meanBytesPerToken(samples: readonly ResidencySample[]): number | null {
  const pts = bytesPerTokenSeries(samples);
  return pts.length ? pts.reduce((a, p) => a + p.bytes, 0) / pts.length : null;
}

/**
 * Decode tokens/s over time: the worker's own figure where a sample carries one, else the
 * tokens decoded between consecutive decode samples divided by the time between them.
 */
export function tokSSeries(samples: readonly ResidencySample[]): { tS: number; tokS: number }[] {
  const out: { tS: number; tokS: number }[] = [];
  let prev: ResidencySample | null = null;
  for (const s of samples) {
    if (s.decodeTokS !== null) out.push({ tS: s.tMs / 1000, tokS: s.decodeTokS });
    else if (s.phase === 'decode' && prev && s.token > prev.token && s.tMs > prev.tMs) {
      out.push({ tS: s.tMs / 1000, tokS: ((s.token - prev.token) * 1000) / (s.tMs - prev.tMs) });
    }
    if (s.phase === 'decode') prev = s;
    else prev = null;
  }
  return out;
}

export interface CgroupPoint {
  tS: number;
  usage: number;
  limit: number | null;
}

export interface CgroupTick {
  tMs: number;
  usageBytes: number;
  limitBytes: number;
}

export function cgroupSeries(samples: readonly ResidencySample[], ticks: readonly CgroupTick[] = []): CgroupPoint[] {
  const pts: CgroupPoint[] = samples
    .filter((s) => s.cgroupBytes !== null)
    .map((s) => ({ tS: s.tMs / 1000, usage: s.cgroupBytes as number, limit: s.cgroupLimitBytes }));
  for (const t of ticks) pts.push({ tS: t.tMs / 1000, usage: t.usageBytes, limit: t.limitBytes });
  return pts.sort((a, b) => a.tS - b.tS);
}

export function eventCounts(events: readonly ResidencyEvent[]): Record<ResidencyEventKind, number> {
  const c: Record<ResidencyEventKind, number> = { prefetch: 0, drop: 0, late: 0, stall: 0, release: 0 };
  for (const e of events) c[e.kind]++;
  return c;
}

export function peakOf(samples: readonly ResidencySample[], key: 'rssBytes' | 'cgroupBytes'): number | null {
  let m: number | null = null;
  for (const s of samples) {
    const v = s[key];
    if (v !== null && (m === null || v > m)) m = v;
  }
  return m;
}
