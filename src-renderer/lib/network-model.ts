// The RPC nodes (layers on other machines) as the dashboard shows them (pure): per node, what
// crossed the network each way and the time waited on it, per decoded token, from the first
// decode sample to the newest.
import type { NetworkSample, ResidencySample } from '../../src-main/shared/residency-types.js';

export interface NetworkNodeRow {
  endpoint: string;
  sentPerToken: number | null;
  receivedPerToken: number | null;
  waitMsPerToken: number | null;
  /** Whole run, the load's weights included. */
  sent: number;
  received: number;
}

export interface NetworkView {
  nodes: NetworkNodeRow[];
  /** Over all nodes, per decoded token. */
  bytesPerToken: number | null;
  waitMsPerToken: number | null;
  tokens: number;
}

export function networkView(samples: readonly ResidencySample[]): NetworkView | null {
  const all = samples.filter((s): s is ResidencySample & { network: NetworkSample } => s.network !== undefined);
  const last = all[all.length - 1];
  if (!last) return null;
  const decode = all.filter((s) => s.phase === 'decode');
  const a = decode[0];
  const b = decode[decode.length - 1];
  const tokens = a && b ? b.token - a.token : 0;
  const per = (i: number, f: (n: NetworkSample['nodes'][number]) => number): number | null => {
    const x = a?.network.nodes[i];
    const y = b?.network.nodes[i];
    return tokens > 0 && x && y ? (f(y) - f(x)) / tokens : null;
  };
  const nodes = last.network.nodes.map((n, i) => ({
    endpoint: n.endpoint,
    sentPerToken: per(i, (x) => x.bytesSent),
    receivedPerToken: per(i, (x) => x.bytesReceived),
    waitMsPerToken: per(i, (x) => x.waitMs),
    sent: n.bytesSent,
    received: n.bytesReceived,
  }));
  const sum = (f: (r: NetworkNodeRow) => number | null): number | null => (tokens > 0 ? nodes.reduce((s, r) => s + (f(r) ?? 0), 0) : null);
  return { nodes, bytesPerToken: sum((r) => (r.sentPerToken ?? 0) + (r.receivedPerToken ?? 0)), waitMsPerToken: sum((r) => r.waitMsPerToken), tokens };
}
