// Starts the inference worker as an Electron utility process (a Node child managed by
// Electron). The worker's channel.ts speaks parentPort there.
import { utilityProcess } from 'electron';
import type { WorkerProcess } from '../worker/host.js';
import type { WorkerExit } from '../shared/worker-protocol.js';

export function utilityWorkerSpawner(script: string, env: NodeJS.ProcessEnv): WorkerProcess {
  const child = utilityProcess.fork(script, [], { env, serviceName: 'RAMforge inference worker', stdio: 'inherit' });
  let killed = false;
  const exited = new Promise<WorkerExit>((resolve) => {
    child.once('exit', (code: number) => {
      const crashed = code !== 0;
      resolve({
        reason: killed ? 'killed' : crashed ? 'crash' : 'exit',
        code,
        signal: null,
        message: killed ? 'the inference worker was killed on request' : crashed ? `the inference worker ended with exit code ${code}` : 'the inference worker exited',
      });
    });
  });
  return {
    send: (msg) => {
      child.postMessage(msg);
    },
    // Unchecked here: WorkerHost checks every message against the protocol.
    onMessage: (fn) => child.on('message', (m: unknown) => fn(m)),
    exited,
    kill: () => {
      killed = true;
      child.kill();
    },
  };
}
