// Pure: the `--rpc host:port[,host:port…]` list, and what a node said about itself.

/** The RPC protocol of the pinned llama.cpp (ggml-rpc.h: RPC_PROTO_*_VERSION). */
export const RPC_PROTOCOL = { major: 7, minor: 0, patch: 0 } as const;

/** llama.cpp's rpc-server listens here unless told otherwise. */
export const RPC_DEFAULT_PORT = 50052;

export interface RpcNodeInfo {
  endpoint: string;
  version: { major: number; minor: number; patch: number };
  devices: number;
  /** What the node's first device reports: under `rpc-server --ram … --enforce-ram`, its cap. */
  freeBytes: number;
  totalBytes: number;
}

export class RpcEndpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RpcEndpointError';
  }
}

export function parseEndpoint(ep: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(ep.trim());
  if (!m) throw new RpcEndpointError(`'${ep}' is not host:port`);
  const port = Number(m[2]);
  if (port < 1 || port > 65535) throw new RpcEndpointError(`'${ep}': port ${port} is out of range (1-65535)`);
  const host = (m[1] as string).replace(/^\[(.*)\]$/, '$1');
  return { host, port };
}

/** The endpoints of an `--rpc a:1,b:2` value as written (checked by parseRpcList and the settings). */
export function splitRpcList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** `--rpc a:1,b:2`: each endpoint checked, none twice, at most llama.cpp's 16 servers. */
export function parseRpcList(value: string): string[] {
  const eps = splitRpcList(value);
  if (eps.length === 0) throw new RpcEndpointError('--rpc needs at least one host:port');
  if (eps.length > 16) throw new RpcEndpointError(`--rpc names ${eps.length} nodes; llama.cpp takes at most 16`);
  const seen = new Set<string>();
  for (const ep of eps) {
    parseEndpoint(ep);
    if (seen.has(ep)) throw new RpcEndpointError(`--rpc names ${ep} twice`);
    seen.add(ep);
  }
  return eps;
}

/** What a run that lost a node says of it (the CLI's last line, the app's banner). */
export function lostNodeText(why: string): string {
  return `${why}: the layers it held were lost with it, so the run ended`;
}

/**
 * Why a run whose decode stopped moving was ended (RPC_STEP_* in settings/run-settings.ts). The
 * nodes are all named here; which one froze is told after, by asking each (lostNodeText).
 */
export function stalledRunText(o: { idleMs: number; deadlineMs: number }, endpoints: readonly string[]): string {
  return `no progress for ${(o.idleMs / 1000).toFixed(1)} s (this step's deadline ${(o.deadlineMs / 1000).toFixed(1)} s) while the decode waited on its RPC nodes (${endpoints.join(', ')}): a node that froze keeps its connection open, so nothing else would end the wait`;
}
