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

export function networkFigures(samples: readonly ResidencySample[], remote: RemotePlan | null | undefined): NetworkFigures | null {
  const withNet = samples.filter((s): s is ResidencySample & { network: NetworkSample } => s.network !== undefined);
  const last = withNet[withNet.length - 1];
  if (!last) return null;
  const decode = withNet.filter((s) => s.phase === 'decode');
  const a = decode[0];
  const b = decode[decode.length - 1];
  const tokens = a && b ? b.token - a.token : 0;
  const per = (i: number, f: (n: NetworkSample['nodes'][number]) => number): number | null => {
    const x = a?.network.nodes[i];
    const y = b?.network.nodes[i];
    return tokens > 0 && x && y ? (f(y) - f(x)) / tokens : null;
  };
  const nodes: NetworkNodeFigures[] = last.network.nodes.map((n, i) => {
    const planned = remote?.nodes.find((p) => p.endpoint === n.endpoint);
    return {
      endpoint: n.endpoint,
      layers: planned?.layers ?? [],
      holds_head: (planned?.headBytes ?? 0) > 0,
      sent_bytes: n.bytesSent,
      received_bytes: n.bytesReceived,
      decode_sent_bytes_per_token: per(i, (x) => x.bytesSent),
      decode_received_bytes_per_token: per(i, (x) => x.bytesReceived),
      decode_wait_ms_per_token: per(i, (x) => x.waitMs),
    };
  });
  const total = (f: (n: NetworkNodeFigures) => number | null): number | null => (tokens > 0 ? nodes.reduce((s, n) => s + (f(n) ?? 0), 0) : null);
  return {
    nodes,
    decode_bytes_per_token: total((n) => (n.decode_sent_bytes_per_token ?? 0) + (n.decode_received_bytes_per_token ?? 0)),
    decode_wait_ms_per_token: total((n) => n.decode_wait_ms_per_token),
    predicted_bytes_per_token: remote?.networkBytesPerToken.value ?? null,
    note:
      tokens > 0
        ? `decode figures from token ${a?.token} to token ${b?.token} (${decode.length} samples); bytes are the kernel's TCP counters of each node's connection, waits timed at the scheduler's splits`
        : 'fewer than two decode samples: decode figures unknown',
  };
}
