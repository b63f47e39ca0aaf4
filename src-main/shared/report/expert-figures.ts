// What a report says of the expert cache (a mixture of experts under the stream policy), from
// the run's own samples: the cache the schedule made, hits, reads, stalls and the accuracy of
// the next-layer prediction, over the whole run and over decode alone. Pure.
import type { ExpertSample, ResidencySample } from '../residency-types.js';
import type { StreamSchedule } from '../worker-protocol.js';

export interface ExpertFigures {
  slots_per_layer: number | null;
  experts: number | null;
  cache_bytes: number | null;
  staging_bytes: number | null;
  /** Expert tensors computed from slots in the CPU kernels' repacked layout. */
  repacked_tensors: number;
  /** Whole run (prompt and decode). */
  routed: number;
  /** In a slot before the micro-batch was routed (cache hits); read ahead on a prediction. */
  hits: number;
  prefetch_hits: number;
  hit_rate: number | null;
  loads: number;
  prefetches: number;
  read_bytes: number;
  stalls: number;
  stall_ms: number;
  predicted: number;
  predicted_right: number;
  prediction_accuracy: number | null;
  staged: number;
  /** Experts a staged micro-batch (a prompt) read that were kept in slots for what follows. */
  promoted: number;
  /** Lossy (--skip-cold-experts): routed experts skipped instead of read, and the mean router weight they carried. */
  skipped: number;
  skipped_mean_weight: number | null;
  /** Experts read into the slots at setup from what earlier runs of the model were routed to most (a warm start). */
  warmed: number;
  /** Read-ahead: jobs dropped unread, bytes read for experts never used, and the share of predictions acted on. */
  prefetch_dropped: number;
  prefetch_wasted_bytes: number;
  prefetch_issued_share: number | null;
  /** Between the first and the last decode sample. */
  decode_hit_rate: number | null;
  /** Routed experts in a slot or being read when needed: cache hits plus prefetch hits. */
  decode_ready_rate: number | null;
  decode_expert_bytes_per_token: number | null;
  decode_prediction_accuracy: number | null;
  decode_stall_ms_per_token: number | null;
  /**
   * Expert bytes read in decode over the time at least one of those reads was in flight: the rate
   * the device gave the expert reads while they ran (compare the device probe's), whatever the
   * compute did between them.
   */
  decode_expert_read_rate_bytes_per_s: number | null;
  /**
   * Where the routed experts were found, tier by tier (whole run): a VRAM slot (the GPU tier; 0
   * without one), a RAM slot (a hit or read ahead in time), or storage (read on demand).
   */
  tiers: { device: string | null; device_slots_per_layer: number | null; vram_hits: number; ram_hits: number; storage_reads: number; uploads: number; upload_bytes: number; decode_vram_hit_rate: number | null };
  note: string;
}

const ratio = (a: number, b: number): number | null => (b > 0 ? a / b : null);

export function expertFigures(samples: readonly ResidencySample[], schedule: StreamSchedule | null): ExpertFigures | null {
  const withExperts = samples.filter((s): s is ResidencySample & { experts: ExpertSample } => s.experts !== undefined);
  const last = withExperts[withExperts.length - 1];
  if (!last) return null;
  const x = last.experts;
  const decode = withExperts.filter((s) => s.phase === 'decode');
  const a = decode[0];
  const b = decode[decode.length - 1];
  const tokens = a && b ? b.token - a.token : 0;
  const d = (f: (e: ExpertSample) => number): number => (a && b ? f(b.experts) - f(a.experts) : 0);
  const cache = schedule?.expertCache ?? null;
  return {
    slots_per_layer: cache?.slotsPerLayer ?? null,
    experts: cache?.experts ?? null,
    cache_bytes: cache?.cacheBytes ?? null,
    staging_bytes: cache?.stagingBytes ?? null,
    repacked_tensors: x.repackedProjections,
    routed: x.routed,
    hits: x.hits,
    prefetch_hits: x.prefetchHits,
    hit_rate: ratio(x.hits, x.routed),
    loads: x.loads,
    prefetches: x.prefetches,
    read_bytes: x.readBytes,
    stalls: x.stalls,
    stall_ms: x.stallMs,
    predicted: x.predicted,
    predicted_right: x.predictedRight,
    prediction_accuracy: ratio(x.predictedRight, x.predicted),
    staged: x.staged,
    promoted: x.promoted,
    skipped: x.skipped,
    skipped_mean_weight: ratio(x.skippedWeight, x.skipped),
    warmed: x.warmed,
    prefetch_dropped: x.prefetchDropped,
    prefetch_wasted_bytes: x.prefetchWastedBytes,
    prefetch_issued_share: ratio(x.predictionsIssued, x.predictions),
    decode_hit_rate: ratio(d((e) => e.hits), d((e) => e.routed)),
    decode_ready_rate: ratio(d((e) => e.hits + e.prefetchHits), d((e) => e.routed)),
    decode_expert_bytes_per_token: tokens > 0 ? d((e) => e.readBytes) / tokens : null,
    decode_prediction_accuracy: ratio(d((e) => e.predictedRight), d((e) => e.predicted)),
    decode_stall_ms_per_token: tokens > 0 ? d((e) => e.stallMs) / tokens : null,
    decode_expert_read_rate_bytes_per_s: d((e) => e.ioBusyMs) > 0 ? (1000 * d((e) => e.readBytes)) / d((e) => e.ioBusyMs) : null,
    tiers: {
      device: cache?.device?.name ?? null,
      device_slots_per_layer: cache?.device?.slotsPerLayer ?? null,
      vram_hits: x.deviceHits,
      ram_hits: x.hits + x.prefetchHits,
      storage_reads: Math.max(0, x.routed - x.deviceHits - x.hits - x.prefetchHits - x.skipped),
      uploads: x.uploads,
      upload_bytes: x.uploadBytes,
      decode_vram_hit_rate: cache?.device ? ratio(d((e) => e.deviceHits), d((e) => e.routed)) : null,
    },
    note: tokens > 0 ? `decode figures from token ${a?.token} to token ${b?.token} (${decode.length} samples)` : 'fewer than two decode samples: decode figures unknown',
  };
}
