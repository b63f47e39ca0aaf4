// What a report says of the RPC nodes (layers on other machines, `--rpc`), from the run's own
// samples: each node's layers, what crossed the network to it and back per decoded token (the
// kernel's TCP counters), and how long each token waited on it. Pure.
import type { NetworkSample, ResidencySample } from '../residency-types.js';
import type { RemotePlan } from '../plan/place-remote.js';

export interface NetworkNodeFigures {
  endpoint: string;
  /** Blocks it holds (and whether the output head is there), from the plan. */
  layers: number[];
  holds_head: boolean;
  /** Whole run: the load's weights sent to it included. */
  sent_bytes: number;
  received_bytes: number;
  /** Between the first and the last decode sample, per token. */
  decode_sent_bytes_per_token: number | null;
  decode_received_bytes_per_token: number | null;
  decode_wait_ms_per_token: number | null;
}

export interface NetworkFigures {
  nodes: NetworkNodeFigures[];
  /** Sums over the nodes, per decoded token. */
  decode_bytes_per_token: number | null;
  decode_wait_ms_per_token: number | null;
  /** The plan's prediction of the same, for comparison. */
  predicted_bytes_per_token: number | null;
  note: string;
}

/** Per node, cumulative at the newest sample and per token between the first and last decode samples. */
export interface NetworkDecodeRow {
  endpoint: string;
  sent: number;
  received: number;
  sentPerToken: number | null;
  receivedPerToken: number | null;
  waitMsPerToken: number | null;
}

/** The samples' network figures per node (the report's and the dashboard's one reading of them). */
export function networkDecode(samples: readonly ResidencySample[]): { rows: NetworkDecodeRow[]; tokens: number; decodeSamples: number; first: number | null; last: number | null } | null {
  const withNet = samples.filter((s): s is ResidencySample & { network: NetworkSample } => s.network !== undefined);
  const newest = withNet[withNet.length - 1];
  if (!newest) return null;
  const decode = withNet.filter((s) => s.phase === 'decode');
  const a = decode[0];
  const b = decode[decode.length - 1];
  const tokens = a && b ? b.token - a.token : 0;
  const per = (i: number, f: (n: NetworkSample['nodes'][number]) => number): number | null => {
    const x = a?.network.nodes[i];
    const y = b?.network.nodes[i];
    return tokens > 0 && x && y ? (f(y) - f(x)) / tokens : null;
  };
  const rows = newest.network.nodes.map((n, i) => ({
    endpoint: n.endpoint,
    sent: n.bytesSent,
    received: n.bytesReceived,
    sentPerToken: per(i, (x) => x.bytesSent),
    receivedPerToken: per(i, (x) => x.bytesReceived),
    waitMsPerToken: per(i, (x) => x.waitMs),
  }));
  return { rows, tokens, decodeSamples: decode.length, first: a?.token ?? null, last: b?.token ?? null };
}

export function networkFigures(samples: readonly ResidencySample[], remote: RemotePlan | null | undefined): NetworkFigures | null {
  const d = networkDecode(samples);
  if (!d) return null;
  const nodes: NetworkNodeFigures[] = d.rows.map((n) => {
    const planned = remote?.nodes.find((p) => p.endpoint === n.endpoint);
    return {
      endpoint: n.endpoint,
      layers: planned?.layers ?? [],
      holds_head: (planned?.headBytes ?? 0) > 0,
      sent_bytes: n.sent,
      received_bytes: n.received,
      decode_sent_bytes_per_token: n.sentPerToken,
      decode_received_bytes_per_token: n.receivedPerToken,
      decode_wait_ms_per_token: n.waitMsPerToken,
    };
  });
  const total = (f: (n: NetworkNodeFigures) => number | null): number | null => (d.tokens > 0 ? nodes.reduce((s, n) => s + (f(n) ?? 0), 0) : null);
  return {
    nodes,
    decode_bytes_per_token: total((n) => (n.decode_sent_bytes_per_token ?? 0) + (n.decode_received_bytes_per_token ?? 0)),
    decode_wait_ms_per_token: total((n) => n.decode_wait_ms_per_token),
    predicted_bytes_per_token: remote?.networkBytesPerToken.value ?? null,
    note:
      d.tokens > 0
        ? `decode figures from token ${d.first} to token ${d.last} (${d.decodeSamples} samples); bytes are the kernel's TCP counters of each node's connection, waits timed at the scheduler's splits`
        : 'fewer than two decode samples: decode figures unknown',
  };
}
