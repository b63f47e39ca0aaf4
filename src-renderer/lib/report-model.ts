// A saved or just-finished report (schema_version 1, snake_case), read defensively: every
// section may be missing, and the views show an explicit empty state for what is.
// Local narrow types; the report's own types (src-main/shared/report) are the source of truth.
import { specsFromReport, type ReportOutsideRow } from '../../src-main/shared/report/residency-rows.js';
import type { ResidencyRowSpec } from '../../src-main/shared/residency/residency-model.js';
import type { ReportLayer } from '../../src-main/shared/report/report-types.js';
import type { ResidencyEvent, ResidencySample } from '../../src-main/shared/residency-types.js';
import { arr, bool, field, isObj, num, numLike, obj, str } from './fields.js';
import { asTier, type PlanLayer } from './plan-model.js';
import { normalizeEvent, normalizeSample } from './sample-model.js';
import { normalizeSchedule, streamCounters, type ScheduleInfo, type StreamCounters } from './schedule-model.js';
import { figuresFromReport, type StreamFigures } from './stream-figures.js';
import { normalizeTrace, type TraceInfo } from './trace-model.js';
import { routingFromReport, type RoutingView } from './routing-model.js';

export interface LedgerRow {
  category: string;
  bytes: number | null;
  provenance: string | null;
  reason: string | null;
}

export interface ReconRow {
  name: string;
  bytes: number | null;
  detail: string | null;
}

export interface ActionRow {
  kind: string;
  count: number | null;
  requestedBytes: number | null;
  acceptedBytes: number | null;
  observedBytes: number | null;
}

export interface CgroupInfo {
  version: number | null;
  limitBytes: number | null;
  peakBytes: number | null;
  limitHits: number | null;
  oomKills: number | null;
}

export interface GenerationInfo {
  tokenIds: number[];
  ttftMs: number | null;
  decodeTokS: number | null;
  promptTokens: number | null;
  stopReason: string | null;
  text: string | null;
}

/** The run's shape as it ran (ctx, micro-batch and threads may have been chosen for the cap). */
export interface RunShapeInfo {
  ctx: number | null;
  batch: number | null;
  threads: number | null;
  ramBytes: number | null;
  enforceRam: boolean | null;
}

export interface ReportInfo {
  schemaVersion: number | null;
  status: string | null;
  exitCode: number | null;
  message: string | null;
  modelName: string | null;
  policy: string | null;
  generation: GenerationInfo | null;
  layers: (PlanLayer & { residentBytes: number | null })[];
  timeline: ResidencySample[];
  events: ResidencyEvent[];
  ledger: LedgerRow[];
  reconciliation: ReconRow[];
  /** Policy actions: requested vs accepted vs observed bytes. */
  actions: ActionRow[];
  cgroup: CgroupInfo | null;
  trace: TraceInfo | null;
  /** Bytes read per decoded token, measured (null when the report lacks it). */
  readBytesPerToken: number | null;
  /** Decode under the cap: limit hits, locked residency, read rate, non-weight memory, the floor. */
  figures: StreamFigures;
  /** The streaming split the worker executed (stream policy), else null. */
  schedule: ScheduleInfo | null;
  counters: StreamCounters | null;
  /** A mixture of experts: the expert reads against Belady's optimum, the trace replayed, read-ahead. */
  routing: RoutingView | null;
  shape: RunShapeInfo;
  /** The storage rate the run's plan assumed. */
  plannedDiskBytesPerS: number | null;
  peakBytes: number | null;
  /** The residency model's rows (every layer and tensor outside the layers), null for a report without them. */
  residencyRows: ResidencyRowSpec[] | null;
  raw: unknown;
}

const isPlacement = (p: unknown): boolean =>
  isObj(p) && ['vram_bytes', 'locked_bytes', 'streamed_bytes', 'expert_bytes'].every((k) => typeof p[k] === 'number') && Array.isArray(p['remote']) && (p['remote'] as unknown[]).every((r) => isObj(r) && typeof r['endpoint'] === 'string' && typeof r['bytes'] === 'number');

/** The rows from a report's layers and rows outside them, where every one carries its placement (a dropped file is not trusted). */
function residencyRowsOf(residency: unknown): ResidencyRowSpec[] | null {
  const layers = (residency as { layers?: unknown } | null)?.layers;
  const outside = (residency as { outside?: unknown } | null)?.outside;
  if (!Array.isArray(layers) || !Array.isArray(outside)) return null;
  const ok = (r: unknown) => isObj(r) && typeof r['bytes'] === 'number' && isPlacement(r['placement']);
  if (!layers.every((l) => ok(l) && typeof (l as Record<string, unknown>)['index'] === 'number') || !outside.every((o) => ok(o) && typeof (o as Record<string, unknown>)['key'] === 'string' && typeof (o as Record<string, unknown>)['name'] === 'string')) return null;
  return specsFromReport(layers as ReportLayer[], outside as ReportOutsideRow[]);
}

function ledgerRow(category: string, v: unknown): LedgerRow {
  return {
    category: str(v, 'category', 'name', 'label') ?? category,
    bytes: numLike(v),
    provenance: str(v, 'provenance', 'source', 'from'),
    reason: str(v, 'reason', 'why'),
  };
}

function ledgerRows(ledger: unknown): LedgerRow[] {
  const list = field(ledger, 'entries', 'items', 'rows', 'figures');
  if (Array.isArray(list)) return list.map((e, i) => ledgerRow(`#${i}`, e));
  if (Array.isArray(ledger)) return ledger.map((e, i) => ledgerRow(`#${i}`, e));
  if (!isObj(ledger)) return [];
  return Object.entries(ledger)
    .filter(([k, v]) => !/^reconcil/i.test(k) && (typeof v === 'number' || v === null || (isObj(v) && ('value' in v || 'bytes' in v))))
    .map(([k, v]) => ledgerRow(k, v));
}

function reconRows(ledger: unknown, report: unknown): ReconRow[] {
  const r = field(ledger, 'reconciliation', 'differences') ?? field(report, 'reconciliation');
  if (Array.isArray(r)) {
    return r.map((d, i) => ({
      name: str(d, 'name', 'label', 'what') ?? `#${i}`,
      bytes: num(d, 'bytes', 'diff', 'value', 'differenceBytes'),
      detail: str(d, 'formula', 'detail', 'reason', 'provenance'),
    }));
  }
  if (isObj(r)) {
    return Object.entries(r).map(([k, v]) => ({ name: k, bytes: numLike(v) ?? num(v, 'diff'), detail: str(v, 'formula', 'reason', 'detail') }));
  }
  return [];
}

function cgroupInfo(c: unknown): CgroupInfo | null {
  if (!isObj(c)) return null;
  return {
    version: num(c, 'version'),
    limitBytes: num(c, 'limitBytes'),
    peakBytes: num(c, 'peakBytes'),
    limitHits: num(c, 'maxEvents', 'limitHits', 'failcnt'),
    oomKills: num(c, 'oomKills'),
  };
}

function generationInfo(g: unknown): GenerationInfo | null {
  if (!isObj(g)) return null;
  const prompt = field(g, 'promptTokens');
  return {
    tokenIds: arr(g, 'tokenIds', 'tokens').filter((t): t is number => typeof t === 'number'),
    ttftMs: num(g, 'ttftMs'),
    decodeTokS: num(g, 'decodeTokS'),
    promptTokens: Array.isArray(prompt) ? prompt.length : num(g, 'promptTokens', 'promptTokenCount'),
    stopReason: str(g, 'stopReason'),
    text: str(g, 'text'),
  };
}

export function normalizeReport(raw: unknown): ReportInfo {
  const outcome = obj(raw, 'outcome');
  const residency = obj(raw, 'residency');
  const ledger = field(raw, 'ledger');
  const model = field(raw, 'model');
  const config = obj(raw, 'config');
  // The report's layers say where each layer lived; how much of it streamed is in its plan.
  const planStreamed = new Map(arr(field(raw, 'plan'), 'layers').map((l) => [num(l, 'index'), num(l, 'streamedBytes')]));
  const layers = arr(residency, 'layers').map((l, i) => {
    const index = num(l, 'index', 'layer') ?? i;
    return { index, bytes: num(l, 'bytes') ?? 0, residentBytes: num(l, 'residentBytes'), tier: asTier(field(l, 'tier')), streamedBytes: planStreamed.get(index) ?? null };
  });
  const timeline = arr(residency, 'timeline', 'samples').map(normalizeSample);
  const events = arr(residency, 'events')
    .map(normalizeEvent)
    .filter((e): e is ResidencyEvent => e !== null);
  const cgroup = cgroupInfo(field(raw, 'cgroup'));
  const peakRss = timeline.reduce<number | null>((m, s) => (s.rssBytes === null ? m : Math.max(m ?? 0, s.rssBytes)), null);
  return {
    schemaVersion: num(raw, 'schemaVersion'),
    status: str(outcome, 'status'),
    exitCode: num(outcome, 'exitCode'),
    message: str(outcome, 'message'),
    modelName: typeof model === 'string' ? model : str(model, 'name', 'file', 'path'),
    policy: str(residency, 'policy') ?? str(config, 'policy'),
    generation: generationInfo(field(raw, 'generation')),
    layers,
    timeline,
    events,
    ledger: ledgerRows(ledger),
    reconciliation: reconRows(ledger, raw),
    actions: arr(residency, 'actions').map((a) => ({
      kind: str(a, 'kind') ?? '?',
      count: num(a, 'count'),
      requestedBytes: num(a, 'requestedBytes'),
      acceptedBytes: num(a, 'acceptedBytes'),
      observedBytes: num(a, 'observedBytes'),
    })),
    cgroup,
    trace: field(raw, 'graphTrace') == null ? null : normalizeTrace(field(raw, 'graphTrace')),
    readBytesPerToken: num(residency, 'readBytesPerToken', 'bytesReadPerToken') ?? num(raw, 'readBytesPerToken'),
    figures: figuresFromReport(residency, timeline),
    schedule: normalizeSchedule(field(residency, 'schedule')),
    counters: streamCounters(field(residency, 'counters')),
    routing: routingFromReport(residency),
    plannedDiskBytesPerS: num(obj(field(raw, 'plan'), 'input'), 'diskBandwidthBytesPerS'),
    residencyRows: residencyRowsOf(isObj(raw) ? raw['residency'] : null),
    shape: {
      ctx: num(config, 'ctx'),
      batch: num(config, 'batch'),
      threads: num(config, 'threads'),
      ramBytes: num(config, 'ramBytes'),
      enforceRam: bool(config, 'enforceRam'),
    },
    peakBytes: cgroup?.peakBytes ?? num(field(raw, 'memory'), 'peakBytes', 'peakRssBytes') ?? peakRss,
    raw,
  };
}

/** True when `raw` looks like a RAMforge report (used to tell a dropped .json apart). */
export function looksLikeReport(raw: unknown): boolean {
  return isObj(raw) && num(raw, 'schemaVersion') !== null;
}
