// The expert cache of a mixture of experts as the dashboard draws it (pure): a layer × expert
// grid of use and residency from the newest sample, and the hit rate between samples.
import type { ExpertSample, ResidencySample } from '../../src-main/shared/residency-types.js';

export interface ExpertGrid {
  /** Model layer of each row. */
  layers: number[];
  experts: number;
  /** rows × experts: share of the layer's busiest expert's uses (0..1). */
  use: number[];
  /** rows × experts: 1 when a slot holds the expert. */
  resident: number[];
  residentCount: number;
  slotsPerLayer: number;
}

export interface ExpertHitPoint {
  tS: number;
  /** Of the experts routed since the previous point: already cached, and ready (cached or read ahead). */
  hit: number;
  ready: number;
}

const withExperts = (samples: readonly ResidencySample[]) => samples.filter((s): s is ResidencySample & { experts: ExpertSample } => s.experts !== undefined);

export function expertGrid(samples: readonly ResidencySample[]): ExpertGrid | null {
  const all = withExperts(samples);
  const last = all[all.length - 1];
  if (!last || last.experts.resident.length === 0) return null;
  const rows = last.experts.resident;
  const experts = Math.max(...rows.map((r) => r.uses.length));
  const use: number[] = [];
  const resident: number[] = [];
  let residentCount = 0;
  for (const r of rows) {
    const top = Math.max(1, ...r.uses);
    const held = new Set(r.slots.filter((e) => e >= 0));
    for (let e = 0; e < experts; e++) {
      use.push((r.uses[e] ?? 0) / top);
      resident.push(held.has(e) ? 1 : 0);
    }
    residentCount += held.size;
  }
  return { layers: rows.map((r) => r.layer), experts, use, resident, residentCount, slotsPerLayer: Math.max(...rows.map((r) => r.slots.length)) };
}

export function expertHitSeries(samples: readonly ResidencySample[]): ExpertHitPoint[] {
  const all = withExperts(samples);
  const out: ExpertHitPoint[] = [];
  for (let i = 1; i < all.length; i++) {
    const a = all[i - 1]!.experts;
    const b = all[i]!.experts;
    const routed = b.routed - a.routed;
    if (routed <= 0) continue;
    out.push({ tS: all[i]!.tMs / 1000, hit: (b.hits - a.hits) / routed, ready: (b.hits + b.prefetchHits - a.hits - a.prefetchHits) / routed });
  }
  return out;
}

/** Whole-run shares from the newest sample: cache hits, ready in time, predictions right. */
export function expertTotals(samples: readonly ResidencySample[]): { hit: number | null; ready: number | null; predicted: number | null } | null {
  const all = withExperts(samples);
  const x = all[all.length - 1]?.experts;
  if (!x) return null;
  const r = (a: number, b: number) => (b > 0 ? a / b : null);
  return { hit: r(x.hits, x.routed), ready: r(x.hits + x.prefetchHits, x.routed), predicted: r(x.predictedRight, x.predicted) };
}

/** A sample's expert counters from a live event or a saved report (absent when the run had no expert cache). */
export function normalizeExpertSample(raw: unknown): ExpertSample | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const o = raw as Record<string, unknown>;
  const n = (k: string) => (typeof o[k] === 'number' && Number.isFinite(o[k]) ? (o[k] as number) : 0);
  const ints = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number' && Number.isFinite(x)) : []);
  const resident = Array.isArray(o['resident'])
    ? (o['resident'] as unknown[]).flatMap((r) => {
        if (!r || typeof r !== 'object') return [];
        const l = r as Record<string, unknown>;
        return typeof l['layer'] === 'number' ? [{ layer: l['layer'] as number, slots: ints(l['slots']), uses: ints(l['uses']), ...(Array.isArray(l['deviceSlots']) ? { deviceSlots: ints(l['deviceSlots']) } : {}) }] : [];
      })
    : [];
  return {
    routed: n('routed'),
    hits: n('hits'),
    prefetchHits: n('prefetchHits'),
    loads: n('loads'),
    prefetches: n('prefetches'),
    readBytes: n('readBytes'),
    ioBusyMs: n('ioBusyMs'),
    stalls: n('stalls'),
    stallMs: n('stallMs'),
    predicted: n('predicted'),
    predictedRight: n('predictedRight'),
    staged: n('staged'),
    prefetchDropped: n('prefetchDropped'),
    prefetchWastedBytes: n('prefetchWastedBytes'),
    repackedProjections: n('repackedProjections'),
    promoted: n('promoted'),
    skipped: n('skipped'),
    skippedWeight: n('skippedWeight'),
    warmed: n('warmed'),
    deviceHits: n('deviceHits'),
    uploads: n('uploads'),
    uploadBytes: n('uploadBytes'),
    predictions: n('predictions'),
    predictionsIssued: n('predictionsIssued'),
    resident,
  };
}
