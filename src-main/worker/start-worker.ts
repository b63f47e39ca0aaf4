// The one way to start an inference worker: plainly (a Node child, or whatever the host passes,
// e.g. an Electron utility process), or under a hard memory cap through the supervisor — every
// page the worker charges is then inside its cgroup from its first instruction. The CLI, bench
// and the app all start workers here.
import { dropFileCache, startCapped, type CgroupReport, type DropResult, type SupervisedOutcome, type UsageSample } from '../supervisor/index.js';
import { WorkerHost, wrapChild, type WorkerProcess } from './host.js';
import { gpuDriverEnv } from './gpu-drivers.js';
import type { ResidencySample } from '../shared/residency-types.js';
import type { ServeStep, WorkerExit } from '../shared/worker-protocol.js';

export type Spawner = (script: string, env: NodeJS.ProcessEnv) => WorkerProcess | Promise<WorkerProcess>;

export interface StartWorkerOptions {
  cap?: { limitBytes: number; timeoutS: number | null };
  /**
   * The model's files, dropped from the page cache before the worker starts (a cold start).
   * Under a cap every path passes them: pages cached by another process (a previous run, the
   * upload that wrote the file) are charged to that process's group, not the worker's, and the
   * stream schedule's measurement of what the worker holds would count them as its own weights.
   */
  coldStart?: string[];
  /** How to start an uncapped worker (default: Node's fork). */
  spawnPlain?: Spawner;
  onSample?: (s: ResidencySample) => void;
  onCgroupSample?: (s: UsageSample) => void;
  /** Each weight pass of the batch server (a load with parallel > 1). */
  onServeStep?: (s: ServeStep) => void;
  env?: NodeJS.ProcessEnv;
  /** The load offloads to a GPU: the worker gets the machine's GPU drivers (default: none loaded). */
  gpu?: boolean;
}

export interface StartedWorker {
  host: WorkerHost;
  /** What the cold start did to each file (null without one). */
  coldStart: DropResult[] | null;
  /** The supervisor's outcome when capped; resolves after the group is removed. */
  capped: Promise<SupervisedOutcome> | null;
  kill(reason: string): void;
  /** The cap's figures now (null when not capped). */
  cgroup(): CgroupReport | null;
}

/** How a capped run ended, as the host reports worker exits. */
export function exitOf(o: SupervisedOutcome): WorkerExit {
  return {
    reason: o.status === 'oom' ? 'oom' : o.status === 'timeout' ? 'timeout' : o.status === 'ok' ? 'exit' : o.signal === 'SIGKILL' ? 'killed' : 'crash',
    code: o.workerExitCode,
    signal: o.signal,
    message: o.message,
  };
}

export async function startWorker(given: StartWorkerOptions): Promise<StartedWorker> {
  const opts = { ...given, env: { ...gpuDriverEnv(given.gpu ?? false), ...given.env } };
  const coldStart = opts.coldStart ? await dropFileCache(opts.coldStart) : null;
  if (!opts.cap) {
    const host = await WorkerHost.start({ onSample: opts.onSample, onServeStep: opts.onServeStep, env: opts.env, ...(opts.spawnPlain ? { spawn: opts.spawnPlain } : {}) });
    return { host, coldStart, capped: null, kill: () => host.kill(), cgroup: () => null };
  }
  const cap = opts.cap;
  let done: Promise<SupervisedOutcome> | null = null;
  let killRun: (reason: string) => void = () => {};
  let snapshot: () => CgroupReport | null = () => null;
  const starting = WorkerHost.start({
    onSample: opts.onSample,
    onServeStep: opts.onServeStep,
    env: opts.env,
    spawn: (script, env) => {
      const runEnv = { ...env };
      // Inside Electron the worker runs on Electron's own binary in Node mode.
      if (process.versions.electron) runEnv.ELECTRON_RUN_AS_NODE = '1';
      const run = startCapped({
        limitBytes: cap.limitBytes,
        timeoutS: cap.timeoutS,
        command: process.execPath,
        args: [script],
        env: runEnv,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        serialization: 'advanced',
        onSample: opts.onCgroupSample,
      });
      done = run.done;
      killRun = (reason) => run.kill(reason);
      snapshot = () => run.snapshot();
      // The host learns how the worker ended from the supervisor (an OOM kill is not a crash).
      return { ...wrapChild(run.child), exited: run.done.then(exitOf), kill: (reason) => run.kill(reason ?? 'killed on request') };
    },
  });
  let host: WorkerHost;
  try {
    host = await starting;
  } catch (e) {
    // The cap's verdict when it ended the worker before it was ready (a timeout, an OOM kill):
    // the caller reports that, with its exit code, not a failure to start.
    const outcome = await (done as Promise<SupervisedOutcome> | null);
    throw Object.assign(e as Error, { capped: outcome ?? null });
  }
  return { host, coldStart, capped: done, kill: (reason) => killRun(reason), cgroup: () => snapshot() };
}
