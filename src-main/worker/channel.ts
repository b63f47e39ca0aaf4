// The worker's end of the message channel: Node's IPC when forked, Electron's parentPort when
// started as a utilityProcess.
import type { WorkerEvent, WorkerRequest } from '../shared/worker-protocol.js';

interface ParentPort {
  on(event: 'message', fn: (e: { data: unknown }) => void): void;
  postMessage(msg: unknown): void;
}

export interface WorkerChannel {
  send(e: WorkerEvent): void;
  onRequest(fn: (r: WorkerRequest) => void): void;
  onDisconnect(fn: () => void): void;
}

export function openChannel(): WorkerChannel {
  const port = (process as unknown as { parentPort?: ParentPort }).parentPort;
  if (port) {
    return {
      send: (e) => port.postMessage(e),
      onRequest: (fn) => port.on('message', (m) => fn(m.data as WorkerRequest)),
      onDisconnect: () => {},
    };
  }
  if (!process.send) throw new Error('the inference worker must be started by a host (no IPC channel)');
  return {
    send: (e) => {
      if (process.connected) process.send?.(e);
    },
    onRequest: (fn) => process.on('message', (m) => fn(m as WorkerRequest)),
    onDisconnect: (fn) => process.on('disconnect', fn),
  };
}
