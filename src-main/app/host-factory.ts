// The real worker host for the app: the lead's WorkerHost (src-main/worker/host.ts), started as
// a plain child process, an Electron utility process (via `spawnPlain`), or — when the user
// asks for an enforced cap — inside a memory cgroup by the supervisor.
import { WorkerHost, wrapChild, type WorkerProcess } from '../worker/host.js';
import { startCapped } from '../supervisor/index.js';
import type { WorkerExit } from '../shared/worker-protocol.js';
import type { HostFactory, HostLike, HostStartOptions } from './host-like.js';

export type Spawner = (script: string, env: NodeJS.ProcessEnv) => WorkerProcess | Promise<WorkerProcess>;

export interface WorkerHostFactoryOptions {
  /** How to start an uncapped worker (default: Node's fork). Electron passes a utilityProcess spawner. */
  spawnPlain?: Spawner;
}

function cappedSpawner(opts: HostStartOptions): Spawner {
  return (script, env) => {
    const limitBytes = opts.ramBytes;
    if (limitBytes === undefined) throw new Error('an enforced cap needs a RAM budget');
    const runEnv = { ...env };
    // Inside Electron the worker runs on Electron's own binary in Node mode.
    if (process.versions.electron) runEnv.ELECTRON_RUN_AS_NODE = '1';
    const run = startCapped({
      limitBytes,
      timeoutS: null,
      command: process.execPath,
      args: [script],
      env: runEnv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
      onSample: (s) => opts.onCgroupSample(s),
    });
    const child = wrapChild(run.child);
    const exited = run.done.then(
      (o): WorkerExit => ({
        reason: o.status === 'oom' ? 'oom' : o.status === 'timeout' ? 'timeout' : o.status === 'ok' ? 'exit' : o.signal === 'SIGKILL' ? 'killed' : 'crash',
        code: o.workerExitCode,
        signal: o.signal,
        message: o.message,
      }),
    );
    return { ...child, exited, kill: () => run.kill('killed on request') };
  };
}

/** Adapts WorkerHost to what the service uses (a report accessor it may not have yet). */
function adapt(h: WorkerHost): HostLike {
  const withReport = h as WorkerHost & { lastReport?: () => unknown };
  return {
    load: (p, onProgress) => h.load(p, onProgress),
    generate: (p, onToken) => h.generate(p, onToken),
    cancel: () => h.cancel(),
    kill: () => h.kill(),
    close: async () => {
      await h.close();
    },
    exited: h.exited,
    lastReport: () => (typeof withReport.lastReport === 'function' ? (withReport.lastReport() ?? null) : null),
  };
}

export function workerHostFactory(f: WorkerHostFactoryOptions = {}): HostFactory {
  return async (opts) => {
    const spawn = opts.enforceRam ? cappedSpawner(opts) : f.spawnPlain;
    const h = await WorkerHost.start({
      onSample: opts.onSample,
      ...(spawn ? { spawn } : {}),
    });
    return adapt(h);
  };
}
