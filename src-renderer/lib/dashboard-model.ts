// What the dashboard draws, from the live event stream or from one saved report.
import type { EngineState } from '../../src-main/shared/api.js';
import type { ResidencyEvent, ResidencySample, Tier } from '../../src-main/shared/residency-types.js';
import type { PlanInfo } from './plan-model.js';
import type { ActionRow, CgroupInfo, LedgerRow, ReconRow, ReportInfo } from './report-model.js';
import { eventsOf } from './sample-model.js';
import { cgroupSeries, type CgroupPoint, type CgroupTick } from './series.js';

export interface DashboardLayer {
  index: number;
  bytes: number;
  /** null when no plan or report says where the layer lives. */
  tier: Tier | null;
}

export interface DashboardData {
  layers: DashboardLayer[];
  samples: ResidencySample[];
  events: ResidencyEvent[];
  ledger: LedgerRow[];
  reconciliation: ReconRow[];
  actions: ActionRow[];
  cgroup: CgroupInfo | null;
  cgroupPoints: CgroupPoint[];
  /** Physical minimum bytes read per token: the streamed layers' bytes (0 when all fit). */
  minBytesPerToken: number | null;
  predictedBytesPerToken: number | null;
  oom: boolean;
}

/** Layer sizes when neither plan nor report has them: the most ever seen resident. */
export function layersFromSamples(samples: readonly ResidencySample[]): DashboardLayer[] {
  const max: number[] = [];
  for (const s of samples) s.layerResident.forEach((v, i) => (max[i] = Math.max(max[i] ?? 0, v ?? 0)));
  return max.map((bytes, index) => ({ index, bytes, tier: null }));
}

function streamedBytes(layers: readonly DashboardLayer[]): number | null {
  if (!layers.length || layers.some((l) => l.tier === null)) return null;
  return layers.filter((l) => l.tier === 'streamed').reduce((s, l) => s + l.bytes, 0);
}

export function liveDashboard(
  plan: PlanInfo | null,
  samples: ResidencySample[],
  ticks: readonly CgroupTick[],
  report: ReportInfo | null,
  engine: EngineState,
): DashboardData {
  const layers: DashboardLayer[] = plan?.layers.length ? plan.layers : report?.layers.length ? report.layers : layersFromSamples(samples);
  return {
    layers,
    samples,
    events: eventsOf(samples),
    ledger: report?.ledger ?? [],
    reconciliation: report?.reconciliation ?? [],
    actions: report?.actions ?? [],
    cgroup: report?.cgroup ?? null,
    cgroupPoints: cgroupSeries(samples, ticks),
    minBytesPerToken: streamedBytes(layers),
    predictedBytesPerToken: plan?.bytesPerToken ?? null,
    oom: engine.lastExit?.reason === 'oom' || report?.status === 'oom',
  };
}

export function reportDashboard(r: ReportInfo): DashboardData {
  const layers: DashboardLayer[] = r.layers.length ? r.layers : layersFromSamples(r.timeline);
  return {
    layers,
    samples: r.timeline,
    events: eventsOf(r.timeline, r.events),
    ledger: r.ledger,
    reconciliation: r.reconciliation,
    actions: r.actions,
    cgroup: r.cgroup,
    cgroupPoints: cgroupSeries(r.timeline),
    minBytesPerToken: r.minBytesPerToken ?? streamedBytes(layers),
    predictedBytesPerToken: null,
    oom: r.status === 'oom',
  };
}
