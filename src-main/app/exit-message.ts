// What the UI says when the inference worker ends unexpectedly.
import type { WorkerExit } from '../shared/worker-protocol.js';

export function describeExit(exit: WorkerExit): string {
  const how = exit.signal ? `signal ${exit.signal}` : exit.code !== null ? `exit code ${exit.code}` : 'no exit status';
  const what: Record<WorkerExit['reason'], string> = {
    killed: 'The inference worker was killed',
    crash: 'The inference worker crashed',
    oom: 'The inference worker was killed by the memory cap (out of memory)',
    timeout: 'The inference worker ran past its time limit and was stopped',
    exit: 'The inference worker exited',
  };
  const detail = exit.message ? `: ${exit.message}` : '';
  return `${what[exit.reason]} (${how})${detail}. The app is fine; start a new run to get a fresh worker.`;
}
