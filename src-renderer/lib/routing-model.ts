// A mixture of experts' routing and expert cache as the dashboard says them (pure): the expert
// cache's reads ÷ what Belady's offline-optimal cache of the same size would have read for the
// same routing (the MoE's floor, as the floor bytes are a dense model's), the routing trace
// replayed and how often the run outlasted it, and read-ahead — the share of predictions acted
// on, their recall, the bytes read in vain. From a report's residency section, or live from the
// generation's routing summary (GenerationResult.routing) and the samples, through the report's
// own figures (shared/report), so both say the same.
import { expertFigures } from '../../src-main/shared/report/expert-figures.js';
import { routingFigures } from '../../src-main/shared/report/routing-figures.js';
import type { ResidencySample } from '../../src-main/shared/residency-types.js';
import type { RoutingResult, StreamSchedule } from '../../src-main/shared/worker-protocol.js';
import { field, isObj, num, str } from './fields.js';

export const OPTIMUM_NOTE = "Belady's optimum for this routing and cache size: the MoE's floor";

export interface ReadAheadView {
  /** Of the next-layer predictions made, the share acted on (read-ahead stops itself while its precision is below 1/2). */
  issuedShare: number | null;
  /** Of the experts routed in decode, the share the prediction named (whole run when decode is unknown). */
  recall: number | null;
  wastedBytes: number | null;
  dropped: number | null;
}

export interface RoutingView {
  /** The trace replayed (null: the model's own routing). */
  trace: string | null;
  recordedTo: string | null;
  replacedSelections: number | null;
  promptWraps: number;
  decodeWraps: number;
  slotsPerLayer: number | null;
  /** The expert cache's reads, and what the optimum and LRU would have read (null until the routing is known). */
  readBytes: number | null;
  optimalReadBytes: number | null;
  lruReadBytes: number | null;
  readOverOptimal: number | null;
  optimalDecodeBytesPerToken: number | null;
  /** Null when no expert cache ran. */
  readAhead: ReadAheadView | null;
  /** Lossy (--skip-cold-experts): routed experts computed as zero instead of read, and their mean routing weight. */
  skipped: number | null;
  skippedMeanWeight: number | null;
  /** The expert cache's VRAM tier (null without one): the routed experts found in each tier, and the uploads into VRAM. */
  tiers: TiersView | null;
}

export interface TiersView {
  device: string;
  slotsPerLayer: number | null;
  vramHits: number;
  ramHits: number;
  storageReads: number;
  uploads: number;
  uploadBytes: number;
  decodeVramHitRate: number | null;
}

function tiersView(experts: unknown): TiersView | null {
  const t = field(experts, 'tiers');
  const device = str(t, 'device');
  if (!device) return null;
  return {
    device,
    slotsPerLayer: num(t, 'deviceSlotsPerLayer'),
    vramHits: num(t, 'vramHits') ?? 0,
    ramHits: num(t, 'ramHits') ?? 0,
    storageReads: num(t, 'storageReads') ?? 0,
    uploads: num(t, 'uploads') ?? 0,
    uploadBytes: num(t, 'uploadBytes') ?? 0,
    decodeVramHitRate: num(t, 'decodeVramHitRate'),
  };
}

/** From the report's `residency.routing` and `residency.experts` (or the same figures made live); null when neither exists. */
export function routingView(routing: unknown, experts: unknown): RoutingView | null {
  if (!isObj(routing) && !isObj(experts)) return null;
  const r = isObj(routing) ? routing : {};
  return {
    trace: str(r, 'trace'),
    recordedTo: str(r, 'recordedTo'),
    replacedSelections: num(r, 'replacedSelections'),
    promptWraps: num(r, 'promptWraps') ?? 0,
    decodeWraps: num(r, 'decodeWraps') ?? 0,
    slotsPerLayer: num(r, 'slotsPerLayer') ?? num(experts, 'slotsPerLayer'),
    readBytes: num(experts, 'readBytes'),
    optimalReadBytes: num(r, 'optimalReadBytes'),
    lruReadBytes: num(r, 'lruReadBytes'),
    readOverOptimal: num(r, 'readOverOptimal'),
    optimalDecodeBytesPerToken: num(r, 'optimalDecodeBytesPerToken'),
    readAhead: isObj(experts)
      ? {
          issuedShare: num(experts, 'prefetchIssuedShare'),
          recall: num(experts, 'decodePredictionAccuracy') ?? num(experts, 'predictionAccuracy'),
          wastedBytes: num(experts, 'prefetchWastedBytes'),
          dropped: num(experts, 'prefetchDropped'),
        }
      : null,
    skipped: num(experts, 'skipped'),
    skippedMeanWeight: num(experts, 'skippedMeanWeight', 'skipped_mean_weight'),
    tiers: tiersView(experts),
  };
}

/** A saved report's view, from its residency section. */
export function routingFromReport(residency: unknown): RoutingView | null {
  return routingView(field(residency, 'routing'), field(residency, 'experts'));
}

/**
 * Live: the samples give read-ahead as it runs; the optimum comes with the routing summary at the
 * end of each generation. Before the first one ends, the trace the model was loaded with.
 */
export function liveRouting(result: RoutingResult | null, samples: readonly ResidencySample[], schedule: StreamSchedule | null, loadedTrace: string | null): RoutingView | null {
  const experts = expertFigures(samples, schedule);
  const view = routingView(routingFigures(result ?? undefined, experts), experts);
  if (view) return result ? view : { ...view, trace: loadedTrace };
  return loadedTrace === null ? null : routingView({ trace: loadedTrace }, null);
}

/** The view's own words for its trace: the file's name, how much of it the run used, and whether it started over. */
export function traceLine(v: RoutingView): string {
  if (v.trace === null) return "the model's own routing";
  const name = v.trace.split(/[\\/]/).pop() ?? v.trace;
  if (v.replacedSelections === null) return `replayed from ${name}`;
  const used = ` (${v.replacedSelections} token × layer selections)`;
  const wraps = v.promptWraps + v.decodeWraps > 0 ? `; the run outlasted it: started over ${v.promptWraps}× in prompts, ${v.decodeWraps}× in decode` : '; not started over';
  return `replayed from ${name}${used}${wraps}`;
}
