// Starts the inference worker for a command: plainly, or under the hard memory cap through the
// supervisor (every page the worker charges is inside its cgroup from its first instruction).
import { startCapped, type SupervisedOutcome, type UsageSample } from '../supervisor/index.js';
import { WorkerHost, wrapChild } from '../worker/host.js';
import type { ResidencySample } from '../shared/residency-types.js';

export interface EngineProcessOptions {
  cap?: { limitBytes: number; timeoutS: number | null };
  onSample?: (s: ResidencySample) => void;
  onCgroupSample?: (s: UsageSample) => void;
  env?: NodeJS.ProcessEnv;
}

export interface EngineProcess {
  host: WorkerHost;
  /** The supervisor's outcome when capped; resolves after the group is removed. */
  capped: Promise<SupervisedOutcome> | null;
  kill(reason: string): void;
}

export async function startEngineProcess(opts: EngineProcessOptions): Promise<EngineProcess> {
  if (!opts.cap) {
    const host = await WorkerHost.start({ onSample: opts.onSample, env: opts.env });
    return { host, capped: null, kill: () => host.kill() };
  }
  const cap = opts.cap;
  let done: Promise<SupervisedOutcome> | null = null;
  let killRun: (reason: string) => void = () => {};
  const host = await WorkerHost.start({
    onSample: opts.onSample,
    env: opts.env,
    spawn: (script, env) => {
      const run = startCapped({
        limitBytes: cap.limitBytes,
        timeoutS: cap.timeoutS,
        command: process.execPath,
        args: [script],
        env,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        serialization: 'advanced',
        onSample: opts.onCgroupSample,
      });
      done = run.done;
      killRun = (reason) => run.kill(reason);
      return wrapChild(run.child);
    },
  });
  return { host, capped: done, kill: (reason) => killRun(reason) };
}
