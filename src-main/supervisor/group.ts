// One memory cgroup created for one worker: the version-independent surface the supervisor
// uses. v1-group.ts and v2-group.ts implement it over the shared control-file layer.
import type { CgroupVersion } from '../shared/cgroup/types.js';

/** A figure read from the kernel, with the file (and key) it came from. */
export interface Sourced {
  value: number;
  source: string;
}

/** Either a figure or the reason it is unknown. */
export type Reading = Sourced | { value: null; reason: string };

export interface MemoryGroup {
  readonly version: CgroupVersion;
  readonly dir: string;
  /** Set the hard limit (and forbid swap); returns the limit as the kernel holds it. */
  setLimit(bytes: number): { bytes: number; exact: string; notes: string[] };
  /** Current charge in bytes (v1 memory.usage_in_bytes, v2 memory.current); null if unreadable. */
  usage(): number | null;
  /** Peak charge according to the kernel, if it keeps one. */
  peak(): Reading;
  /** Times the limit was hit. */
  maxEvents(): Reading;
  oomKills(): Reading;
  swapPeak(): Reading;
  /** Parsed memory.stat (key → value) plus any extra counters (v1 kmem), or null. */
  stat(): { kv: Map<string, number>; kernel: Sourced | null } | null;
  /** Pids in the group. */
  procs(): number[];
  /** Path of cgroup.procs (a process writes its own pid there to join). */
  readonly procsFile: string;
  /** SIGKILL everything in the group (one pass; call until procs() is empty). */
  killAll(): void;
}
