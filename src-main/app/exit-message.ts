// What the UI says when the inference worker ends unexpectedly.
import type { WorkerExit } from '../shared/worker-protocol.js';
import { lostRpcNodes } from '../node/rpc-node.js';
import { lostNodeText } from '../shared/remote/rpc-endpoint.js';

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

/**
 * describeExit for a run with layers on RPC nodes: ggml's client ends the worker when a node goes
 * away, without naming it; the nodes that no longer answer are named (in milliseconds when
 * refused, 1.5 s at most).
 */
export async function describeExitOnNodes(exit: WorkerExit, endpoints: string[]): Promise<string> {
  try {
    const lost = await lostRpcNodes(endpoints);
    return [describeExit(exit), ...lost.map((e) => `${lostNodeText(e.message)}.`)].join(' ');
  } catch {
    return describeExit(exit);
  }
}
