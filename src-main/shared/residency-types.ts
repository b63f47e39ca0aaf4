// Shapes of what the residency engine observes, streamed live to hosts and kept in reports.

export type Tier = 'vram' | 'pinned' | 'streamed';

export type ResidencyEventKind = 'prefetch' | 'drop' | 'late' | 'stall' | 'release';

export interface ResidencyEvent {
  tMs: number;
  kind: ResidencyEventKind;
  layer: number;
  bytes: number;
  durMs?: number;
}

export interface ResidencySample {
  /** Milliseconds since the worker started the operation. */
  tMs: number;
  /** Tokens decoded so far (0 during load and prompt). */
  token: number;
  phase: 'load' | 'prompt' | 'decode' | 'idle';
  /** Resident bytes per layer, same order as the plan's layers. */
  layerResident: (number | null)[];
  persistentResident: number | null;
  rssBytes: number | null;
  /** Charge of the worker's memory group (capped runs), else null. */
  cgroupBytes: number | null;
  cgroupLimitBytes: number | null;
  /** Cumulative times the group's limit was hit (capped runs), else null. */
  limitHits: number | null;
  /** Resident bytes of the weights the stream schedule holds locked, and their total. */
  pinnedResident: number | null;
  pinnedBytes: number | null;
  /** Cumulative bytes read from storage by the worker (/proc/self/io read_bytes). */
  readBytes: number | null;
  majorFaults: number | null;
  decodeTokS: number | null;
  events: ResidencyEvent[];
}
