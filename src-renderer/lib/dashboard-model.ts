// What the dashboard draws, from the live event stream or from one saved report.
import type { EngineState } from '../../src-main/shared/api.js';
import type { ResidencyEvent, ResidencySample, Tier } from '../../src-main/shared/residency-types.js';
import type { PlanInfo } from './plan-model.js';
import type { ActionRow, CgroupInfo, LedgerRow, ReconRow, ReportInfo } from './report-model.js';
import { eventsOf } from './sample-model.js';
import { normalizeSchedule, type ScheduleInfo, type StreamCounters } from './schedule-model.js';
import { figuresFromSamples, firstKnown, UNKNOWN, type Fig, type StreamFigures } from './stream-figures.js';
import { cgroupSeries, type CgroupPoint, type CgroupTick } from './series.js';
import { liveRouting, type RoutingView } from './routing-model.js';
import type { RoutingResult } from '../../src-main/shared/worker-protocol.js';
import type { ResidencyRowSpec } from '../../src-main/shared/residency/residency-model.js';

export interface DashboardLayer {
  index: number;
  bytes: number;
  /** null when no plan or report says where the layer lives. */
  tier: Tier | null;
  /** Bytes of the layer that stream (the rest is locked); null when unknown. */
  streamedBytes?: number | null;
}

export interface DashboardData {
  layers: DashboardLayer[];
  /** Every layer and tensor outside the layers, where each copy is (null: the worker or report has no rows). */
  residencyRows: ResidencyRowSpec[] | null;
  /** Whether the stream schedule's reads were observed (what a row read per token). */
  readsObserved: boolean;
  samples: ResidencySample[];
  events: ResidencyEvent[];
  ledger: LedgerRow[];
  reconciliation: ReconRow[];
  actions: ActionRow[];
  cgroup: CgroupInfo | null;
  cgroupPoints: CgroupPoint[];
  /** Decode under the cap; `floor` is the bytes per token no schedule can read less than. */
  figures: StreamFigures;
  schedule: ScheduleInfo | null;
  counters: StreamCounters | null;
  /** A mixture of experts: its expert reads against Belady's optimum, the trace, read-ahead (null: none). */
  routing: RoutingView | null;
  predictedBytesPerToken: number | null;
  /** The storage rate the plan assumed, to read the measured rate against. */
  diskBytesPerS: number | null;
  oom: boolean;
}

/** Layer sizes when neither plan nor report has them: the most ever seen resident. */
export function layersFromSamples(samples: readonly ResidencySample[]): DashboardLayer[] {
  const max: number[] = [];
  for (const s of samples) s.layerResident.forEach((v, i) => (max[i] = Math.max(max[i] ?? 0, v ?? 0)));
  return max.map((bytes, index) => ({ index, bytes, tier: null }));
}

const planned = (value: number | null, what: string): Fig => (value === null ? UNKNOWN : { value, note: `planned ${what}` });

/**
 * Live: the samples speak first; the last run's report fills in what they cannot say, and
 * the plan what neither measured. The floor is measured only once the run's report exists
 * (it needs the whole decode's charge); until then the plan's floor stands in.
 */
function liveFigures(samples: readonly ResidencySample[], plan: PlanInfo | null, report: ReportInfo | null): StreamFigures {
  const s = figuresFromSamples(samples);
  const r = report?.figures;
  return {
    limitHits: firstKnown(s.limitHits, r?.limitHits ?? UNKNOWN),
    pinnedResidentMin: firstKnown(s.pinnedResidentMin, r?.pinnedResidentMin ?? UNKNOWN),
    readRate: firstKnown(s.readRate, r?.readRate ?? UNKNOWN),
    nonWeight: r?.nonWeight ?? UNKNOWN,
    floor: firstKnown(r?.floor ?? UNKNOWN, planned(plan?.floorBytesPerToken ?? null, 'floor (weights − (cap − planned non-weight memory))')),
  };
}

export function liveDashboard(
  plan: PlanInfo | null,
  samples: ResidencySample[],
  ticks: readonly CgroupTick[],
  report: ReportInfo | null,
  engine: EngineState,
  routing: RoutingResult | null = null,
): DashboardData {
  const layers: DashboardLayer[] = plan?.layers.length ? plan.layers : report?.layers.length ? report.layers : layersFromSamples(samples);
  return {
    layers,
    residencyRows: engine.model?.residencyRows ?? report?.residencyRows ?? null,
    readsObserved: engine.model ? (engine.model.schedule ?? null) !== null : report?.policy === 'stream',
    samples,
    events: eventsOf(samples),
    ledger: report?.ledger ?? [],
    reconciliation: report?.reconciliation ?? [],
    actions: report?.actions ?? [],
    cgroup: report?.cgroup ?? null,
    cgroupPoints: cgroupSeries(samples, ticks),
    figures: liveFigures(samples, plan, report),
    schedule: normalizeSchedule(engine.model?.schedule) ?? report?.schedule ?? null,
    counters: report?.counters ?? null,
    // This load's own routing and samples first; after a restart, what the last report kept.
    routing: liveRouting(routing, samples, engine.model?.schedule ?? null, engine.settings?.routingTrace ?? null) ?? report?.routing ?? null,
    predictedBytesPerToken: plan?.bytesPerToken ?? null,
    diskBytesPerS: plan?.diskBytesPerS ?? null,
    oom: engine.lastExit?.reason === 'oom' || report?.status === 'oom',
  };
}

export function reportDashboard(r: ReportInfo): DashboardData {
  const layers: DashboardLayer[] = r.layers.length ? r.layers : layersFromSamples(r.timeline);
  return {
    layers,
    residencyRows: r.residencyRows,
    readsObserved: r.policy === 'stream',
    samples: r.timeline,
    events: eventsOf(r.timeline, r.events),
    ledger: r.ledger,
    reconciliation: r.reconciliation,
    actions: r.actions,
    cgroup: r.cgroup,
    cgroupPoints: cgroupSeries(r.timeline),
    figures: r.figures,
    schedule: r.schedule,
    counters: r.counters,
    routing: r.routing,
    predictedBytesPerToken: null,
    diskBytesPerS: r.plannedDiskBytesPerS,
    oom: r.status === 'oom',
  };
}
