// The RPC nodes (layers on other machines) as the dashboard shows them (pure): per node, what
// crossed the network each way and the time waited on it, per decoded token, from the first
// decode sample to the newest (the report's own reading of the samples).
import type { ResidencySample } from '../../src-main/shared/residency-types.js';
import { networkDecode, type NetworkDecodeRow } from '../../src-main/shared/report/network-figures.js';

export type NetworkNodeRow = NetworkDecodeRow;

export interface NetworkView {
  nodes: NetworkNodeRow[];
  /** Over all nodes, per decoded token. */
  bytesPerToken: number | null;
  waitMsPerToken: number | null;
  tokens: number;
}

export function networkView(samples: readonly ResidencySample[]): NetworkView | null {
  const d = networkDecode(samples);
  if (!d) return null;
  const sum = (f: (r: NetworkNodeRow) => number | null): number | null => (d.tokens > 0 ? d.rows.reduce((s, r) => s + (f(r) ?? 0), 0) : null);
  return { nodes: d.rows, bytesPerToken: sum((r) => (r.sentPerToken ?? 0) + (r.receivedPerToken ?? 0)), waitMsPerToken: sum((r) => r.waitMsPerToken), tokens: d.tokens };
}
