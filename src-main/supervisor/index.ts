// RAMforge supervisor: runs one worker under a hard, kernel-enforced memory cap.
//
// API (everything the CLI and the app need is exported from here):
//
//   detectCgroup(opts?: { parentDir?: string }): CgroupDetection
//     { usable: true, version: 1 | 2, mountPoint, ownDir, notes } or { usable: false, reason }.
//     v2 is used when our group on the unified hierarchy has the memory controller, else v1.
//     $RAMFORGE_CGROUP_PARENT (or parentDir) names a delegated group to create groups under.
//
//   startCapped(opts: StartCappedOptions): CappedRun          (throws CgroupUnavailableError)
//     opts: { limitBytes, timeoutS = 900 (null = none), command, args, env, cwd,
//             stdio (e.g. ['ignore', 'inherit', 'inherit', 'ipc']), serialization,
//             namePrefix = 'ramforge', sampleMs = 100, onSample({ tMs, usageBytes, limitBytes }),
//             handleSignals = true, detection }
//     → { child, cgroupPath, done: Promise<SupervisedOutcome>, kill(reason) }
//     Creates `<prefix>-<pid>-<rand>` below our own cgroup (v2: beside it when ours holds
//     processes), sets the limit (v1 memory.limit_in_bytes + memsw one page above it; v2
//     memory.max, memory.swap.max=0, memory.oom.group=1), then spawns
//     `/bin/sh -c '<join cgroup.procs> && exec "$@"' … command args` so the worker is inside
//     before its first instruction (the IPC fd survives the exec: process.send works).
//     `done` always resolves, after the group has been killed and removed:
//       SupervisedOutcome { status: 'ok'|'oom'|'timeout'|'error', exitCode (0/124/137/worker's),
//         workerExitCode, signal, wallMs, message, cgroup: CgroupReport (snake_case, report-ready:
//         version, path, limit_bytes, limit_bytes_exact, limit_bytes_requested, peak_bytes,
//         max_events, oom_kills, swap_peak_bytes, stat {anon, file, file_mapped, kernel},
//         stat_t_ms, usage_samples, removed, sources, reasons) }
//     SIGTERM/SIGINT/SIGHUP to this process (and process exit) kill and remove live groups,
//     then the signal is re-raised (handleSignals: false leaves that to the caller, who can
//     call cleanupAllGroupsSync()).
//
//   sweepStaleGroups(found, prefix?): Promise<string[]>   remove groups of dead supervisors
//     (startCapped also does this in the background)
//   formatMemoryReport(outcome): string        the `--memory-report` text (stderr)
//   reportSections(outcome): { outcome: {status, exit_code, signal, wall_ms, message}, cgroup }
//   dropFileCache(paths, { fadviseDontNeed? }): Promise<DropResult[]>   cold start, per file
//   CgroupUnavailableError                     an ExitError with exitCode 2
//
// Design note: docs/supervisor.md.

export { detectCgroup } from './detect.js';
export type { CgroupDetection, CgroupFound, CgroupMissing, DetectOptions } from './detect.js';
export { startCapped, GROUP_DIR_ENV, GROUP_VERSION_ENV } from './start-capped.js';
export { openOwnGroup, type OwnGroup } from './own-group.js';
export type { CappedRun, StartCappedOptions, UsageSample } from './start-capped.js';
export { cleanupAllGroupsSync } from './signals.js';
export { sweepStaleGroups } from './sweep.js';
export { CgroupUnavailableError } from './errors.js';
export { dropFileCache, residentBytes } from './cold-start.js';
export type { DropOptions, DropResult, DropStatus } from './cold-start.js';
export { formatMemoryReport, reportSections } from '../shared/cgroup/report.js';
export type { CgroupReport, SupervisedOutcome } from '../shared/cgroup/report.js';
export type { OutcomeStatus } from '../shared/cgroup/outcome.js';
export type { SelectedStat } from '../shared/cgroup/memory-stat.js';
