// Live residency samples and cgroup ticks from the host's events, bounded in memory, and the
// routing summary of a mixture of experts that comes with each generation's result.
import type { RoutingResult } from '../../src-main/shared/worker-protocol.js';
import type { ResidencySample } from '../../src-main/shared/residency-types.js';
import type { CgroupTick } from '../lib/series.js';
import type { Slice } from './types.js';

export const MAX_SAMPLES = 4000;

export interface TelemetrySlice {
  samples: ResidencySample[];
  cgroupTicks: CgroupTick[];
  /** The run's routing since load (GenerationResult.routing of its latest generation), or null. */
  routing: RoutingResult | null;
  pushSample(s: ResidencySample): void;
  pushCgroupTick(t: CgroupTick): void;
  setRouting(r: RoutingResult): void;
  clearTelemetry(): void;
}

function bounded<T>(list: T[], item: T): T[] {
  const next = list.length >= MAX_SAMPLES ? list.slice(list.length - MAX_SAMPLES + 1) : list.slice();
  next.push(item);
  return next;
}

export const createTelemetrySlice: Slice<TelemetrySlice> = (set, get) => ({
  samples: [],
  cgroupTicks: [],
  routing: null,
  pushSample: (s) => set({ samples: bounded(get().samples, s) }),
  pushCgroupTick: (t) => set({ cgroupTicks: bounded(get().cgroupTicks, t) }),
  setRouting: (routing) => set({ routing }),
  clearTelemetry: () => set({ samples: [], cgroupTicks: [], routing: null }),
});
