// `--rpc host:port,…`: every node is asked what it is and what it holds before anything loads;
// one that does not answer as llama.cpp's RPC server of our protocol ends the command (exit 2).
import type { ParsedArgs } from './args.js';
import { flagValues } from './run-flags.js';
import { UsageError } from '../shared/errors.js';
import { RpcEndpointError, lostNodeText, parseRpcList, type RpcNodeInfo } from '../shared/remote/rpc-endpoint.js';
import { lostRpcNodes, probeRpcNodes, RpcNodeError } from '../node/rpc-node.js';
import type { LoadParams } from '../shared/worker-protocol.js';
import { formatBytes } from '../shared/size.js';

/** `--rpc` as given on the command line: checked, then each node asked. */
export async function rpcNodesFromFlags(f: ParsedArgs['flags'], quiet = false): Promise<RpcNodeInfo[]> {
  const given = flagValues(f).rpc;
  if (given === undefined) return [];
  try {
    return await askRpcNodes(parseRpcList(given), quiet);
  } catch (e) {
    if (e instanceof RpcEndpointError) throw new UsageError(e.message.startsWith('--rpc') ? e.message : `--rpc ${e.message}`);
    throw e;
  }
}

/** Each node of a checked list asked what it is and offers, in order; one that does not answer is exit 2. */
export async function askRpcNodes(endpoints: readonly string[], quiet = true): Promise<RpcNodeInfo[]> {
  try {
    const nodes = await probeRpcNodes(endpoints);
    if (!quiet) for (const n of nodes) process.stderr.write(`ramforge: RPC node ${n.endpoint}: protocol ${n.version.major}.${n.version.minor}.${n.version.patch}, ${formatBytes(n.freeBytes)} free of ${formatBytes(n.totalBytes)}\n`);
    return nodes;
  } catch (e) {
    if (e instanceof RpcNodeError) throw new UsageError(`${e.message}. Nothing was loaded.`);
    throw e;
  }
}

/** After a failed run with layers on RPC nodes: which node was lost, in the words the user needs. */
export async function lostNodeLines(load: LoadParams): Promise<string[]> {
  const eps = load.offload?.rpcServers ?? [];
  if (eps.length === 0) return [];
  return (await lostRpcNodes(eps)).map((e) => lostNodeText(e.message));
}
