// The real worker host for the app: the lead's WorkerHost (src-main/worker/host.ts).
// Electron main passes spawn: 'utility' so the worker runs as an Electron utility process.
import { WorkerHost } from '../worker/host.js';
import type { HostFactory } from './host-like.js';

export function workerHostFactory(spawn: 'fork' | 'utility' = 'fork'): HostFactory {
  return (opts) => WorkerHost.start({ ...opts, spawn });
}
