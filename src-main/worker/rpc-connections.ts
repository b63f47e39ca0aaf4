// The kernel's byte counters of this process's connections to RPC nodes, matched to each node.
import type { NativeSocketStat } from '../native/addon.js';

/**
 * The bytes on this process's connections to an RPC node. The peer is an address and a port; a
 * node named by host name is matched by its port (ggml holds one connection per node).
 */
export function connectionBytes(endpoint: string, socks: readonly NativeSocketStat[]): { bytesSent: number; bytesReceived: number } {
  const port = endpoint.slice(endpoint.lastIndexOf(':') + 1);
  const exact = socks.filter((s) => s.peer === endpoint);
  const mine = exact.length > 0 ? exact : socks.filter((s) => s.peer.slice(s.peer.lastIndexOf(':') + 1) === port);
  return { bytesSent: mine.reduce((a, s) => a + s.bytesSent, 0), bytesReceived: mine.reduce((a, s) => a + s.bytesReceived, 0) };
}
