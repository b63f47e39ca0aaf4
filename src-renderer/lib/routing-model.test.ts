// The dashboard's routing view: from a saved report's residency section (snake_case), and live
// from the samples and the routing summary each generation brings, through the report's own
// figures: read ÷ optimal, the optimum's bytes, the trace and its wraps, read-ahead's share acted
// on, recall and bytes read in vain. The live dashboard falls back to the last report's view.
import { describe, expect, it } from 'vitest';
import type { EngineState } from '../../src-main/shared/api.js';
import type { ExpertSample } from '../../src-main/shared/residency-types.js';
import type { RoutingResult } from '../../src-main/shared/worker-protocol.js';
import { liveDashboard, reportDashboard } from './dashboard-model.js';
import { normalizeReport } from './report-model.js';
import { liveRouting, routingFromReport, traceLine } from './routing-model.js';
import { sample } from './sample.test-util.js';

const TRACE = '/t/gemma-4-26b-a4b.route.csv';

const residency = {
  experts: { slots_per_layer: 62, read_bytes: 33_000, prefetch_issued_share: 0.003, decode_prediction_accuracy: 0.04, prediction_accuracy: 0.05, prefetch_wasted_bytes: 512, prefetch_dropped: 3 },
  routing: {
    trace: TRACE,
    recorded_to: null,
    replaced_selections: 447,
    prompt_wraps: 0,
    decode_wraps: 2,
    dropped_ids: 0,
    slots_per_layer: 62,
    optimal_read_bytes: 30_000,
    lru_read_bytes: 31_000,
    read_over_optimal: 1.1,
    optimal_decode_bytes_per_token: 1000,
    note: '',
  },
};

const ex = (p: Partial<ExpertSample>): ExpertSample => ({
  routed: 0, hits: 0, prefetchHits: 0, loads: 0, prefetches: 0, readBytes: 0, ioBusyMs: 0, stalls: 0, stallMs: 0, predicted: 0, predictedRight: 0,
  staged: 0, prefetchDropped: 0, prefetchWastedBytes: 0, predictions: 0, predictionsIssued: 0, repackedProjections: 0, promoted: 0, skipped: 0, skippedWeight: 0, warmed: 0, deviceHits: 0, uploads: 0, uploadBytes: 0, resident: [], ...p,
});
const samples = [
  sample({ tMs: 0, token: 1, experts: ex({ predicted: 10, predictedRight: 1, predictions: 10, predictionsIssued: 10, readBytes: 1000 }) }),
  sample({ tMs: 100, token: 5, experts: ex({ predicted: 30, predictedRight: 3, predictions: 40, predictionsIssued: 10, readBytes: 6000, prefetchWastedBytes: 256, prefetchDropped: 1 }) }),
];
const result: RoutingResult = {
  trace: TRACE,
  recordedTo: '/t/out.csv',
  replacedSelections: 150,
  promptWraps: 1,
  decodeWraps: 0,
  droppedIds: 0,
  forgottenRequests: 0,
  optimum: { slotsPerLayer: 4, optimalReadBytes: 4000, lruReadBytes: 5000, optimalDecodeReadBytes: 2000, lruDecodeReadBytes: 2500, decodeSteps: 4 },
};
const engine: EngineState = { status: 'ready', model: null, settings: null, lastExit: null, message: null };

describe('routing view', () => {
  it("a saved report: read ÷ optimal, the optimum's bytes, the trace with its wraps, read-ahead", () => {
    const v = routingFromReport(residency)!;
    expect(v).toMatchObject({ trace: TRACE, readOverOptimal: 1.1, optimalReadBytes: 30_000, lruReadBytes: 31_000, readBytes: 33_000, slotsPerLayer: 62, decodeWraps: 2, optimalDecodeBytesPerToken: 1000 });
    expect(v.readAhead).toEqual({ issuedShare: 0.003, recall: 0.04, wastedBytes: 512, dropped: 3 });
    expect(traceLine(v)).toBe('replayed from gemma-4-26b-a4b.route.csv (447 token × layer selections); the run outlasted it: started over 0× in prompts, 2× in decode');
    expect(normalizeReport({ schema_version: 1, residency }).routing).toEqual(v);
    expect(reportDashboard(normalizeReport({ schema_version: 1, residency })).routing).toEqual(v);
  });

  it("the expert cache's VRAM tier: the routed experts found in VRAM, in RAM and read from storage; none without the tier", () => {
    const tiers = { device: 'Vulkan0', device_slots_per_layer: 5, vram_hits: 60, ram_hits: 25, storage_reads: 15, uploads: 40, upload_bytes: 4096, decode_vram_hit_rate: 0.7 };
    const v = routingFromReport({ ...residency, experts: { ...residency.experts, tiers } })!;
    expect(v.tiers).toEqual({ device: 'Vulkan0', slotsPerLayer: 5, vramHits: 60, ramHits: 25, storageReads: 15, uploads: 40, uploadBytes: 4096, decodeVramHitRate: 0.7 });
    const none = { ...tiers, device: null, device_slots_per_layer: null, vram_hits: 0, uploads: 0, upload_bytes: 0, decode_vram_hit_rate: null };
    expect(routingFromReport({ ...residency, experts: { ...residency.experts, tiers: none } })!.tiers).toBeNull();
    expect(routingFromReport(residency)!.tiers).toBeNull();
  });

  it("a report of the model's own routing without an expert cache; one with neither section", () => {
    const own = routingFromReport({ routing: { ...residency.routing, trace: null, optimal_read_bytes: null, read_over_optimal: null }, experts: null })!;
    expect(own.readAhead).toBeNull();
    expect(own.readOverOptimal).toBeNull();
    expect(traceLine(own)).toBe("the model's own routing");
    expect(routingFromReport({ experts: null })).toBeNull();
  });

  it('live, mid-turn: read-ahead from the samples, the trace the model was loaded with, the optimum not yet known', () => {
    const v = liveRouting(null, samples, null, TRACE)!;
    expect(v.trace).toBe(TRACE);
    expect(v.readOverOptimal).toBeNull();
    expect(v.readBytes).toBe(6000);
    // 10 of 40 predictions acted on; 2 of the 20 routed in decode predicted; 256 bytes read for nothing.
    expect(v.readAhead).toEqual({ issuedShare: 0.25, recall: 0.1, wastedBytes: 256, dropped: 1 });
    expect(traceLine(v)).toBe('replayed from gemma-4-26b-a4b.route.csv');
    expect(liveRouting(null, [], null, null)).toBeNull();
    expect(liveRouting(null, [], null, TRACE)?.trace).toBe(TRACE);
  });

  it("live, after a generation: its routing summary against the samples' reads", () => {
    const v = liveRouting(result, samples, null, null)!;
    expect(v.readOverOptimal).toBe(6000 / 4000);
    expect(v).toMatchObject({ trace: TRACE, recordedTo: '/t/out.csv', optimalReadBytes: 4000, lruReadBytes: 5000, slotsPerLayer: 4, promptWraps: 1, optimalDecodeBytesPerToken: 500 });
  });

  it("the live dashboard: this load's routing first, else the last report's", () => {
    const report = normalizeReport({ schema_version: 1, residency });
    expect(liveDashboard(null, samples, [], report, engine, result).routing?.optimalReadBytes).toBe(4000);
    expect(liveDashboard(null, [], [], report, engine, null).routing?.optimalReadBytes).toBe(30_000);
    expect(liveDashboard(null, [], [], null, engine, null).routing).toBeNull();
  });
});
