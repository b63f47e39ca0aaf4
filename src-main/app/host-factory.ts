// The real worker host for the app: a worker started the one way every path starts one
// (src-main/worker/start-worker.ts) — a plain child, an Electron utility process (`spawnPlain`),
// or under the enforced cap.
import { startWorker, type Spawner } from '../worker/start-worker.js';
import type { HostFactory, HostLike } from './host-like.js';

export type { Spawner };

export interface WorkerHostFactoryOptions {
  /** How to start an uncapped worker (default: Node's fork). Electron passes a utilityProcess spawner. */
  spawnPlain?: Spawner;
}

export function workerHostFactory(f: WorkerHostFactoryOptions = {}): HostFactory {
  return async (opts) => {
    if (opts.enforceRam && opts.ramBytes === undefined) throw new Error('an enforced cap needs a RAM budget');
    const w = await startWorker({
      cap: opts.enforceRam ? { limitBytes: opts.ramBytes as number, timeoutS: null } : undefined,
      ...(opts.coldStart ? { coldStart: opts.coldStart } : {}),
      ...(opts.gpuEnv ? { env: { ...opts.gpuEnv }, gpu: true } : {}),
      spawnPlain: f.spawnPlain,
      onSample: opts.onSample,
      onCgroupSample: opts.onCgroupSample,
      onServeStep: opts.onServeStep,
    });
    const h = w.host;
    const host: HostLike = {
      load: (p, onProgress) => h.load(p, onProgress),
      generate: (p, onToken, signal) => h.generate(p, onToken, signal),
      embed: (texts, truncate, pooling) => h.embed(texts, truncate, pooling),
      tokenize: (text, addSpecial, parseSpecial) => h.tokenize(text, addSpecial, parseSpecial),
      detokenize: (tokens, special) => h.detokenize(tokens, special),
      applyTemplate: (params) => h.applyTemplate(params),
      cancel: () => h.cancel(),
      kill: () => w.kill('killed on request'),
      close: async () => {
        await h.close();
      },
      exited: h.exited,
      cgroupReport: () => w.cgroup(),
    };
    return host;
  };
}
