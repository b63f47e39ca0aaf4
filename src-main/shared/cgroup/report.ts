// The report-facing shape of a supervised run (snake_case, as the report schema wants) and
// the human `--memory-report` text. Unknown figures are null, with the reason in `reasons`.
import { formatBytes } from '../size.js';
import type { SelectedStat } from './memory-stat.js';
import type { OutcomeStatus } from './outcome.js';
import type { CgroupVersion } from './types.js';

export interface CgroupReport {
  version: CgroupVersion;
  /** Directory of the (now removed) group. */
  path: string;
  /** The limit as the kernel holds it (page-rounded), read back after writing it. */
  limit_bytes: number;
  /** The same, exactly as the control file printed it. */
  limit_bytes_exact: string;
  limit_bytes_requested: number;
  peak_bytes: number | null;
  /** Times the limit was hit (v2 memory.events max, v1 memory.failcnt). */
  max_events: number | null;
  oom_kills: number | null;
  swap_peak_bytes: number | null;
  /** memory.stat counters at the highest sampled usage while the worker ran. */
  stat: SelectedStat;
  /** Milliseconds after start when `stat` was read; null if never read. */
  stat_t_ms: number | null;
  usage_samples: number;
  /** Whether the group was removed afterwards (false only if cleanup failed; see reasons.removed). */
  removed: boolean;
  /** Field → where the figure came from (control file[:key], or "samples"). */
  sources: Record<string, string>;
  /** Field → why it is null (or, for `removed`, why removal failed). */
  reasons: Record<string, string>;
}

/** One reading of the group's charge while the worker runs. */
export interface UsageSample {
  /** Milliseconds since the worker was started. */
  tMs: number;
  usageBytes: number;
  limitBytes: number;
}

export interface SupervisedOutcome {
  status: OutcomeStatus;
  /** What the CLI should exit with: 0 ok, 124 timeout, 137 OOM, else the worker's code. */
  exitCode: number;
  /** The worker's own exit code and signal, as the kernel reported them. */
  workerExitCode: number | null;
  signal: string | null;
  wallMs: number;
  message: string;
  cgroup: CgroupReport;
}

/** The report's `outcome {status, exit_code}` and `cgroup` sections. */
export function reportSections(o: SupervisedOutcome): {
  outcome: { status: OutcomeStatus; exit_code: number; signal: string | null; wall_ms: number; message: string };
  cgroup: CgroupReport;
} {
  return {
    outcome: { status: o.status, exit_code: o.exitCode, signal: o.signal, wall_ms: o.wallMs, message: o.message },
    cgroup: o.cgroup,
  };
}

function bytes(v: number | null, reason: string | undefined, source: string | undefined): string {
  if (v === null) return `unknown (${reason ?? 'no reason recorded'})`;
  return `${v} bytes (${formatBytes(v)})${source ? `  [${source}]` : ''}`;
}

function count(v: number | null, reason: string | undefined, source: string | undefined): string {
  if (v === null) return `unknown (${reason ?? 'no reason recorded'})`;
  return `${v}${source ? `  [${source}]` : ''}`;
}

export function formatMemoryReport(o: SupervisedOutcome): string {
  const c = o.cgroup;
  const r = c.reasons;
  const s = c.sources;
  const lines = [
    `memory report: cgroup v${c.version} ${c.path}`,
    `  outcome       ${o.status} (exit ${o.exitCode}): ${o.message}`,
    `  worker        ${o.signal ? `signal ${o.signal}` : `exit code ${o.workerExitCode ?? '?'}`}`,
    `  wall time     ${(o.wallMs / 1000).toFixed(3)} s`,
    `  limit         ${c.limit_bytes_exact} bytes (${formatBytes(c.limit_bytes)})` +
      (c.limit_bytes !== c.limit_bytes_requested ? `, requested ${c.limit_bytes_requested} (kernel rounds to pages)` : ''),
    `  peak          ${bytes(c.peak_bytes, r.peak_bytes, s.peak_bytes)}`,
    `  limit hits    ${count(c.max_events, r.max_events, s.max_events)}`,
    `  OOM kills     ${count(c.oom_kills, r.oom_kills, s.oom_kills)}`,
    `  swap peak     ${bytes(c.swap_peak_bytes, r.swap_peak_bytes, s.swap_peak_bytes)}`,
  ];
  const at = c.stat_t_ms === null ? 'never sampled' : `at ${(c.stat_t_ms / 1000).toFixed(1)} s, highest sampled usage`;
  lines.push(`  memory.stat   ${at}`);
  for (const k of ['anon', 'file', 'file_mapped', 'kernel'] as const) {
    lines.push(`    ${k.padEnd(12)}${bytes(c.stat[k], r[`stat.${k}`], s[`stat.${k}`])}`);
  }
  lines.push(`  samples       ${c.usage_samples}`);
  if (!c.removed) lines.push(`  WARNING       group not removed: ${r.removed ?? 'unknown reason'}`);
  return lines.join('\n') + '\n';
}
