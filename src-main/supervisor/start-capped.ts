// Start one worker inside a fresh memory cgroup, watch it, and remove the group on every path.
import { spawn, type ChildProcess, type IOType, type StdioOptions } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { selectStat } from '../shared/cgroup/memory-stat.js';
import { DEFAULT_ENFORCE_TIMEOUT_S } from '../shared/settings/run-settings.js';
import { classifyOutcome } from '../shared/cgroup/outcome.js';
import type { CgroupReport, SupervisedOutcome, UsageSample } from '../shared/cgroup/report.js';
import { writeControl } from './control-io.js';
import { createGroup, groupName } from './create-group.js';
import { detectCgroup, type CgroupDetection } from './detect.js';
import { CgroupUnavailableError } from './errors.js';
import type { MemoryGroup, Reading } from './group.js';
import { killAndRemove, killAndRemoveSync } from './procs.js';
import { trackGroup, untrackGroup } from './signals.js';
import { sweepStaleGroups } from './sweep.js';

/** Environment variables that tell a capped worker where its memory group is. */
export const GROUP_DIR_ENV = 'RAMFORGE_CGROUP_DIR';
export const GROUP_VERSION_ENV = 'RAMFORGE_CGROUP_VERSION';

export type { UsageSample } from '../shared/cgroup/report.js';

export interface StartCappedOptions {
  /** Hard limit in bytes (the kernel rounds it down to whole pages; the report says so). */
  limitBytes: number;
  /** Kill the group after this many seconds (default DEFAULT_ENFORCE_TIMEOUT_S, 900); null = no timeout. */
  timeoutS?: number | null;
  command: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** As child_process.spawn; include 'ipc' for a Node worker that uses process.send. */
  stdio?: StdioOptions;
  serialization?: 'json' | 'advanced';
  /** Group name prefix (default 'ramforge'): the group is `<prefix>-<pid>-<rand>`. */
  namePrefix?: string;
  /** Sampling period of the usage series (default 100 ms). */
  sampleMs?: number;
  onSample?: (s: UsageSample) => void;
  /** Install SIGTERM/SIGINT/SIGHUP/exit cleanup handlers (default true; the app may own shutdown). */
  handleSignals?: boolean;
  /** A detection result to reuse (default: detectCgroup()). */
  detection?: CgroupDetection;
}

export interface CappedRun {
  child: ChildProcess;
  /** Directory of the group while it exists. */
  cgroupPath: string;
  /** Always resolves (never rejects) once the worker has ended and the group is gone. */
  done: Promise<SupervisedOutcome>;
  /** Stop the run on purpose: kills the whole group; the outcome is 'error' with this reason. */
  kill(reason: string): void;
  /** The group's figures now, while the worker runs (the app's per-turn reports). */
  snapshot(): CgroupReport;
}

// $0 names the script; $1 is the group's cgroup.procs; the rest is the worker's command line.
// The shell moves itself into the group, then exec()s the worker, which therefore charges
// every page to the group from its first instruction. Open fds (the IPC channel) survive exec.
const JOIN_SCRIPT =
  'p=$1; shift; echo $$ > "$p" || { echo "ramforge: cannot join the memory cgroup ($p)" >&2; exit 125; }; exec "$@"';

function put(r: CgroupReport, field: string, reading: Reading): number | null {
  if (reading.value === null) r.reasons[field] = reading.reason;
  else r.sources[field] = reading.source;
  return reading.value;
}

function safe<T>(f: () => T, fallback: T): T {
  try {
    return f();
  } catch {
    return fallback;
  }
}

/** The options' limit and timeout, checked (the timeout defaults to DEFAULT_ENFORCE_TIMEOUT_S; null means none). */
function checkOptions(opts: StartCappedOptions): { timeoutS: number | null } {
  if (!Number.isSafeInteger(opts.limitBytes) || opts.limitBytes <= 0) {
    throw new RangeError(`limitBytes must be a positive integer, got ${opts.limitBytes}`);
  }
  const timeoutS = opts.timeoutS === undefined ? DEFAULT_ENFORCE_TIMEOUT_S : opts.timeoutS;
  if (timeoutS !== null && !(timeoutS > 0)) throw new RangeError(`timeoutS must be > 0 or null, got ${timeoutS}`);
  return { timeoutS };
}

type Limit = { bytes: number; exact: string; notes: string[] };

/** A fresh group with the limit set, tracked for the signal handlers; removed again if the limit cannot be set. */
function openGroup(opts: StartCappedOptions): { group: MemoryGroup; limit: Limit } {
  const found = opts.detection ?? detectCgroup();
  if (!found.usable) throw new CgroupUnavailableError(found.reason);
  // Best effort, in the background: groups of supervisors that died without cleaning up.
  void sweepStaleGroups(found, opts.namePrefix).catch(() => undefined);
  const group: MemoryGroup = createGroup(found, groupName(opts.namePrefix));
  let limit: Limit;
  try {
    limit = group.setLimit(opts.limitBytes);
  } catch (e) {
    safe(() => killAndRemoveSync(group, 1000), undefined);
    throw new CgroupUnavailableError(`could not set the limit on ${group.dir}: ${(e as Error).message}`);
  }
  trackGroup(group, opts.handleSignals ?? true);
  return { group, limit };
}

/** The report before any reading: the group, its limit, nothing measured yet. */
function emptyReport(group: MemoryGroup, limit: Limit, requested: number): CgroupReport {
  const report: CgroupReport = {
    version: group.version,
    path: group.dir,
    limit_bytes: limit.bytes,
    limit_bytes_exact: limit.exact,
    limit_bytes_requested: requested,
    peak_bytes: null,
    max_events: null,
    oom_kills: null,
    swap_peak_bytes: null,
    stat: { anon: null, file: null, file_mapped: null, kernel: null },
    stat_t_ms: null,
    usage_samples: 0,
    removed: false,
    sources: {},
    reasons: {},
  };
  if (limit.notes.length > 0) report.reasons.limit_notes = limit.notes.join('; ');
  return report;
}

/**
 * The group's readings into the report: `sample()` its usage now (the stat at each new maximum,
 * the listener told), `readCounters()` its peak, limit hits, OOM kills and swap as the kernel
 * counts them now.
 */
function groupReadings(group: MemoryGroup, report: CgroupReport, opts: StartCappedOptions, t0: number) {
  let maxSample = -1;
  const sampleStat = (tMs: number) => {
    const s = safe(() => group.stat(), null);
    if (s === null) return;
    const sel = selectStat(group.version, s.kv);
    if (s.kernel) {
      sel.stat.kernel = s.kernel.value;
      sel.sources.kernel = s.kernel.source;
      delete sel.reasons.kernel;
    }
    report.stat = sel.stat;
    report.stat_t_ms = tMs;
    for (const k of ['anon', 'file', 'file_mapped', 'kernel'] as const) {
      delete report.sources[`stat.${k}`];
      delete report.reasons[`stat.${k}`];
      if (sel.sources[k]) report.sources[`stat.${k}`] = sel.sources[k]!;
      if (sel.reasons[k]) report.reasons[`stat.${k}`] = sel.reasons[k]!;
    }
  };
  const sample = () => {
    const usage = safe(() => group.usage(), null);
    if (usage === null) return;
    const tMs = Math.round(performance.now() - t0);
    report.usage_samples++;
    if (usage > maxSample) {
      maxSample = usage;
      sampleStat(tMs);
    }
    try {
      opts.onSample?.({ tMs, usageBytes: usage, limitBytes: report.limit_bytes });
    } catch (e) {
      // A broken listener must not stop the watch or the cleanup.
      process.emitWarning(`supervisor onSample threw: ${(e as Error).message}`);
    }
  };
  const readCounters = () => {
    report.oom_kills = put(report, 'oom_kills', safe(() => group.oomKills(), { value: null, reason: 'unreadable' }));
    report.max_events = put(report, 'max_events', safe(() => group.maxEvents(), { value: null, reason: 'unreadable' }));
    report.swap_peak_bytes = put(report, 'swap_peak_bytes', safe(() => group.swapPeak(), { value: null, reason: 'unreadable' }));
    const kpeak = safe(() => group.peak(), { value: null, reason: 'unreadable' } as Reading);
    if (kpeak.value !== null) report.peak_bytes = put(report, 'peak_bytes', kpeak);
    else if (maxSample >= 0) {
      report.peak_bytes = maxSample;
      report.sources.peak_bytes = `samples (max of ${report.usage_samples} readings every ${opts.sampleMs ?? 100} ms; ${kpeak.reason})`;
    } else report.reasons.peak_bytes = `${kpeak.reason}; no usage sample was taken`;
  };
  return { sample, readCounters };
}

/**
 * The worker started inside the group (the shell joins it, then exec()s the worker). A spawn
 * that throws removes the group at once; `startError` says why a started worker was stopped.
 */
function spawnInGroup(group: MemoryGroup, opts: StartCappedOptions): { child: ChildProcess; startError: string | null } {
  let child: ChildProcess;
  try {
    child = spawn('/bin/sh', ['-c', JOIN_SCRIPT, 'ramforge-join', group.procsFile, opts.command, ...(opts.args ?? [])], {
      // The worker reads its own group's charge and limit hits (what it plans against, what the
      // report shows per phase) from here.
      env: { ...(opts.env ?? process.env), [GROUP_DIR_ENV]: group.dir, [GROUP_VERSION_ENV]: String(group.version) },
      cwd: opts.cwd,
      stdio: opts.stdio ?? (['inherit', 'inherit', 'inherit'] as IOType[]),
      serialization: opts.serialization,
    });
  } catch (e) {
    // Bad options throw synchronously: nothing runs, so the group goes at once.
    killAndRemoveSync(group, 1000);
    untrackGroup(group);
    throw e;
  }
  let startError: string | null = null;
  // Belt and braces: also move the pid from here. A no-op once the shell has joined; if it
  // fails for a live process the group is unusable and the worker is stopped.
  if (child.pid !== undefined) {
    try {
      writeControl(group.dir, 'cgroup.procs', String(child.pid));
    } catch (e) {
      const errno = (e as { errno?: string }).errno;
      if (errno !== 'ESRCH') {
        startError = `could not move pid ${child.pid} into ${group.dir}: ${(e as Error).message}`;
        safe(() => group.killAll(), undefined);
        safe(() => child.kill('SIGKILL'), true);
      }
    }
  }
  return { child, startError };
}

/** What the run's end needs to know about how it went, as it went. */
interface RunState {
  timedOut: boolean;
  stoppedReason: string | null;
  startError: string | null;
}

/**
 * The outcome once the worker has ended: the last readings, the group removed, the verdict.
 * Resolves once, never rejects (a failure while finishing still removes the group).
 */
function outcomeWhenDone(
  child: ChildProcess,
  group: MemoryGroup,
  report: CgroupReport,
  readings: ReturnType<typeof groupReadings>,
  state: RunState,
  timeoutS: number | null,
  t0: number,
  stopWatching: () => void,
): Promise<SupervisedOutcome> {
  return new Promise<SupervisedOutcome>((resolve) => {
    let finished = false;
    const finish = async (code: number | null, signal: NodeJS.Signals | null) => {
      if (finished) return;
      finished = true;
      stopWatching();
      const wallMs = Math.round(performance.now() - t0);
      readings.sample(); // last reading while the group still holds what the worker left (page cache)
      readings.readCounters();
      const rm = await killAndRemove(group);
      report.removed = rm.removed;
      if (rm.reason) report.reasons.removed = rm.reason;
      untrackGroup(group);
      const verdict = classifyOutcome({
        workerExitCode: code,
        workerSignal: signal,
        workerSignalNumber: signal ? (osConstants.signals[signal] ?? null) : null,
        timedOut: state.timedOut,
        timeoutS: timeoutS ?? 0,
        stoppedReason: state.stoppedReason,
        oomKills: report.oom_kills,
        startError: state.startError,
      });
      resolve({ ...verdict, workerExitCode: code, signal, wallMs, cgroup: report });
    };
    const finishSafely = (code: number | null, signal: NodeJS.Signals | null) =>
      finish(code, signal).catch(async (e: unknown) => {
        // Should not happen; if it does, still remove the group and say what went wrong.
        const rm = await killAndRemove(group).catch(() => ({ removed: false, reason: 'cleanup threw' }));
        report.removed = rm.removed;
        untrackGroup(group);
        resolve({
          status: 'error',
          exitCode: 1,
          workerExitCode: code,
          signal,
          wallMs: Math.round(performance.now() - t0),
          message: `supervisor failure while finishing: ${(e as Error)?.message ?? String(e)}`,
          cgroup: report,
        });
      });
    child.once('exit', (code, signal) => void finishSafely(code, signal));
    child.once('error', (err) => {
      // 'error' also reports failed kill()/send(); only a spawn failure leaves no pid.
      if (child.pid === undefined) {
        state.startError = err.message;
        void finishSafely(null, null);
      }
    });
  });
}

export function startCapped(opts: StartCappedOptions): CappedRun {
  const { timeoutS } = checkOptions(opts);
  const { group, limit } = openGroup(opts);
  const report = emptyReport(group, limit, opts.limitBytes);
  const t0 = performance.now();
  const readings = groupReadings(group, report, opts, t0);
  const { child, startError } = spawnInGroup(group, opts);
  const state: RunState = { timedOut: false, stoppedReason: null, startError };

  const sampler = setInterval(readings.sample, opts.sampleMs ?? 100);
  const timer =
    timeoutS === null
      ? null
      : setTimeout(() => {
          state.timedOut = true;
          safe(() => group.killAll(), undefined);
        }, timeoutS * 1000);
  const stopWatching = () => {
    clearInterval(sampler);
    if (timer) clearTimeout(timer);
  };

  return {
    child,
    cgroupPath: group.dir,
    done: outcomeWhenDone(child, group, report, readings, state, timeoutS, t0, stopWatching),
    kill(reason: string) {
      if (state.stoppedReason === null && !state.timedOut) state.stoppedReason = reason;
      safe(() => group.killAll(), undefined);
    },
    snapshot(): CgroupReport {
      if (!report.removed) {
        readings.sample();
        readings.readCounters();
      }
      return structuredClone(report);
    },
  };
}
