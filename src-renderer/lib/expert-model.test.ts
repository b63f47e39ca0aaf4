import { describe, expect, it } from 'vitest';
import { expertGrid, expertHitSeries, expertTotals, normalizeExpertSample } from './expert-model.js';
import type { ExpertSample, ResidencySample } from '../../src-main/shared/residency-types.js';

const base = { token: 1, phase: 'decode' as const, layerResident: [], persistentResident: null, rssBytes: null, cgroupBytes: null, cgroupLimitBytes: null, limitHits: null, pinnedResident: null, pinnedBytes: null, readBytes: null, majorFaults: null, decodeTokS: null, events: [] };
const ex = (routed: number, hits: number, prefetchHits: number, resident: ExpertSample['resident']): ExpertSample => ({ routed, hits, prefetchHits, loads: 0, prefetches: 0, readBytes: 0, ioBusyMs: 0, stalls: 0, stallMs: 0, predicted: routed, predictedRight: prefetchHits, staged: 0, prefetchDropped: 0, prefetchWastedBytes: 0, predictions: 0, predictionsIssued: 0, repackedProjections: 0, promoted: 0, skipped: 0, skippedWeight: 0, warmed: 0, deviceHits: 0, uploads: 0, uploadBytes: 0, resident });
const sample = (tMs: number, experts?: ExpertSample): ResidencySample => ({ ...base, tMs, ...(experts ? { experts } : {}) });

describe('expert model', () => {
  const layers = [
    { layer: 0, slots: [2, 0], uses: [4, 1, 8, 0] },
    { layer: 1, slots: [3, -1], uses: [0, 0, 0, 2] },
  ];
  const samples = [sample(0), sample(1000, ex(4, 1, 1, layers)), sample(2000, ex(8, 3, 4, layers))];

  it("grid: use against the layer's busiest expert, the experts a slot holds (a slot being read holds none)", () => {
    const g = expertGrid(samples)!;
    expect(g.layers).toEqual([0, 1]);
    expect(g.experts).toBe(4);
    expect(g.use).toEqual([0.5, 0.125, 1, 0, 0, 0, 0, 1]);
    expect(g.resident).toEqual([1, 0, 1, 0, 0, 0, 0, 1]);
    expect(g.residentCount).toBe(3);
    expect(g.slotsPerLayer).toBe(2);
  });

  it('hit series between samples with experts; totals from the newest', () => {
    expect(expertHitSeries(samples)).toEqual([{ tS: 2, hit: 0.5, ready: 1.25 }]);
    expect(expertTotals(samples)).toEqual({ hit: 3 / 8, ready: 7 / 8, predicted: 0.5 });
    expect(expertGrid([sample(0)])).toBeNull();
    expect(expertTotals([sample(0)])).toBeNull();
  });

  it("a saved report's sample: fields kept, junk dropped, absent stays absent", () => {
    expect(normalizeExpertSample(undefined)).toBeUndefined();
    const n = normalizeExpertSample({ routed: 5, hits: 'x', resident: [{ layer: 1, slots: [1, 'y'], uses: [2] }, { slots: [] }] })!;
    expect(n.routed).toBe(5);
    expect(n.hits).toBe(0);
    expect(n.resident).toEqual([{ layer: 1, slots: [1], uses: [2] }]);
  });
});
