// Pure: which layers go to other machines (llama.cpp RPC nodes), and what each node holds.
//
// llama.cpp offloads the output head and the last `n_gpu_layers − 1` blocks (the head is "layer"
// n_layer) and splits them over its devices in order by `tensor_split` (layer counts give exact
// counts). So the nodes hold one contiguous run of the last layers: the last node the head and
// the last layers, the node before it the ones before, each within what it offers. A node holds
// its layers' weights and KV cache in its own RAM (nothing streams there), beside its compute
// buffer and the server's own memory; the local process keeps the first layers under its own
// schedule (locked, then streamed).
import { formatBytes } from '../size.js';
import type { RpcNodeInfo } from '../remote/rpc-endpoint.js';
import type { Quantity } from './plan-types.js';

const MiB = 1024 * 1024;

/**
 * What an RPC server holds beyond the buffers it is asked for: the process, ggml's contexts and
 * the graph it keeps between calls. Measured: llama.cpp's rpc-server under a 256 MiB cap holding
 * 5 of the 1b preset's 16 layers (163.2 MiB of weights, 20.0 MiB of KV) peaked at 193.7 MiB,
 * 10.5 MiB beyond those buffers with its compute buffer and the copy of an arriving tensor
 * included. The plan counts the compute buffer and that copy apart; this is the rest, with room.
 */
export const RPC_NODE_RESERVE_BYTES = 16 * MiB;
/** A round trip to a node and back per token, assumed for gigabit Ethernet (loopback: ~0.05 ms). */
export const RPC_ROUNDTRIP_S = 0.5e-3;
/** Gigabit Ethernet's payload rate, for what each token sends to the nodes and back. */
export const RPC_NETWORK_BYTES_PER_S = 117e6;
/**
 * ggml's RPC client sends a split's whole graph with every compute (one 296-byte record per
 * tensor): measured on the small llama preset, 13.7 KiB per layer and token (110 KiB for 8).
 */
export const RPC_GRAPH_BYTES_PER_LAYER = 14 * 1024;

export interface RemoteNodePlan {
  endpoint: string;
  /** What the node reported (under `rpc-server --ram … --enforce-ram`, its cap less its use). */
  freeBytes: number;
  totalBytes: number;
  /** Free less its compute buffer and the server's own reserve: what its layers may take. */
  budgetBytes: number;
  layers: number[];
  /** The output head (on the node with the last block), else 0. */
  headBytes: number;
  /**
   * Its largest tensor: ggml's RPC server receives a whole tensor into a buffer of its own before
   * copying it into place, so for a moment it holds that tensor twice (measured: a node of 256 MiB
   * holding 196 MiB of layers and a 141 MiB head was OOM-killed while the head arrived).
   */
  receiveBytes: number;
  weightBytes: number;
  kvBytes: number;
  computeBytes: number;
}

export interface RemotePlan {
  nodes: RemoteNodePlan[];
  /** The offloaded blocks: the last `layerCount` (llama.cpp's n_gpu_layers is this + 1, the head). */
  layerCount: number;
  /** Per node, in order: its share of n_gpu_layers, the head counted with the last block's node (llama.cpp's tensor_split). */
  split: number[];
  /** Tensor patterns kept here whatever their layer: the head's, when it stays local. */
  cpuTensors: string[];
  /** Per decoded token, to the nodes and back: the hidden state in, the graph, the hidden state (or the logits) out. */
  networkBytesPerToken: Quantity;
  /** Time per token the local process waits on the nodes: their compute and the round trips. */
  remoteSecondsPerToken: Quantity;
}

export interface RemoteLayerCost {
  index: number;
  bytes: number;
  kvBytes: number;
  /** The layer's largest tensor (see RemoteNodePlan.receiveBytes). */
  largestTensorBytes: number;
}

export interface PlaceRemoteInput {
  nodes: readonly RpcNodeInfo[];
  /** Layers that may go remote, in layer order (those not already on a GPU). */
  layers: readonly RemoteLayerCost[];
  /** A node's compute buffer for its share of the graph (the local estimate, an upper bound). */
  computeBytes: number;
  /** The output head's bytes (a tied model's is a copy of token_embd). */
  headBytes: number;
  nEmbd: number;
  nVocab: number;
  /** RAM bandwidth assumed for a node's CPU. */
  ramBandwidthBytesPerS: number;
}

/**
 * The head goes to the nodes with the last block where that offloads more (it is often the
 * largest tensor: 128k vocabularies make it hundreds of MiB, and a node must also have room to
 * receive it); else it stays here, pinned to the CPU by name (llama.cpp's -ot), and the last
 * node sends back the hidden state instead of the logits.
 */
export function placeRemote(i: PlaceRemoteInput): RemotePlan {
  const withHead = placeWith(i, i.headBytes);
  const without = placeWith(i, 0);
  const offloaded = (r: RemotePlan) => r.nodes.reduce((s, n) => s + n.weightBytes + n.headBytes, 0);
  if (i.headBytes === 0 || offloaded(withHead) >= offloaded(without)) return withHead;
  return { ...without, cpuTensors: [...HEAD_TENSOR_PATTERNS] };
}

/** The head's tensors (a tied model's head is token_embd, which llama.cpp copies to the head's device). */
export const HEAD_TENSOR_PATTERNS = ['^output\\.(weight|bias)$', '^output_norm\\.(weight|bias)$', '^token_embd\\.weight$'] as const;

function placeWith(i: PlaceRemoteInput, headBytes: number): RemotePlan {
  const nodes: RemoteNodePlan[] = i.nodes.map((n) => ({
    endpoint: n.endpoint,
    freeBytes: n.freeBytes,
    totalBytes: n.totalBytes,
    budgetBytes: Math.max(0, n.freeBytes - i.computeBytes - RPC_NODE_RESERVE_BYTES),
    layers: [],
    headBytes: 0,
    receiveBytes: 0,
    weightBytes: 0,
    kvBytes: 0,
    computeBytes: i.computeBytes,
  }));
  // From the last layer back: the last node first, then the one before it. When the nodes hold
  // more than there is, each takes a share in proportion to what it offers (as llama.cpp splits
  // by free memory); else each is filled. The run stops at the first layer that fits no node
  // left, so the offloaded layers stay the last ones.
  const totalCost = i.layers.reduce((s, l) => s + l.bytes + l.kvBytes, 0) + headBytes;
  const totalBudget = nodes.reduce((s, n) => s + n.budgetBytes, 0);
  const scale = totalBudget > 0 ? Math.min(1, totalCost / totalBudget) : 0;
  const share = nodes.map((n) => n.budgetBytes * scale);
  let k = nodes.length - 1;
  for (let j = i.layers.length - 1; j >= 0 && k >= 0; j--) {
    const l = i.layers[j] as RemoteLayerCost;
    const cost = l.bytes + l.kvBytes;
    const held = (n: RemoteNodePlan) => n.weightBytes + n.kvBytes + n.headBytes;
    // The node that takes the last block takes the head with it.
    const withHead = j === i.layers.length - 1 ? headBytes : 0;
    const receive = (n: RemoteNodePlan) => Math.max(n.receiveBytes, l.largestTensorBytes, withHead);
    // Move on when this node is full, or (before the first node) has its share: half a layer past it rounds to the next.
    const fits = (n: RemoteNodePlan) => held(n) + cost + withHead + receive(n) <= n.budgetBytes;
    while (k >= 0 && (!fits(nodes[k] as RemoteNodePlan) || (k > 0 && held(nodes[k] as RemoteNodePlan) + cost / 2 > (share[k] as number)))) k--;
    if (k < 0) break;
    const n = nodes[k] as RemoteNodePlan;
    n.receiveBytes = receive(n);
    n.headBytes += withHead;
    n.layers.unshift(l.index);
    n.weightBytes += l.bytes;
    n.kvBytes += l.kvBytes;
  }
  const used = nodes.filter((n) => n.layers.length > 0);
  const layerCount = used.reduce((s, n) => s + n.layers.length, 0);
  const last = used.length > 0 ? nodes.indexOf(used[used.length - 1] as RemoteNodePlan) : -1;
  const hidden = i.nEmbd * 4;
  const net = used.reduce((s, n) => s + hidden + n.layers.length * RPC_GRAPH_BYTES_PER_LAYER + (n.headBytes > 0 ? i.nVocab * 4 : hidden), 0);
  const remoteBytes = used.reduce((s, n) => s + n.weightBytes + n.headBytes, 0);
  const compute = remoteBytes / i.ramBandwidthBytesPerS;
  const wait = compute + used.length * RPC_ROUNDTRIP_S + net / RPC_NETWORK_BYTES_PER_S;
  const fb = formatBytes;
  return {
    nodes,
    cpuTensors: [],
    layerCount,
    split: nodes.map((n, x) => n.layers.length + (x === last ? 1 : 0)),
    networkBytesPerToken: {
      value: net,
      formula:
        `at least, per node: hidden state n_embd ${i.nEmbd} × 4 B in + ${fb(RPC_GRAPH_BYTES_PER_LAYER)} of graph per layer (${layerCount} layers) + out: the hidden state, or the logits n_vocab ${i.nVocab} × 4 B from the node with the head = ${fb(net)} ` +
        `(ggml also sends each split's other inputs, which grow with the context: the run's report measures the real figure)`,
    },
    remoteSecondsPerToken: {
      value: wait,
      formula:
        `remote weights ${fb(remoteBytes)} / ${fb(i.ramBandwidthBytesPerS)}/s = ${(compute * 1000).toFixed(1)} ms + ${used.length} × round trip ${(RPC_ROUNDTRIP_S * 1000).toFixed(1)} ms + ` +
        `${fb(net)} / ${fb(RPC_NETWORK_BYTES_PER_S)}/s = ${(wait * 1000).toFixed(1)} ms (gigabit Ethernet assumed)`,
    },
  };
}

/** The local prediction with the time spent waiting on the nodes added to each token. */
export function withRemoteWait(local: Quantity, remote: RemotePlan): Quantity {
  const wait = remote.remoteSecondsPerToken.value as number;
  if (local.value === null) return local;
  const value = 1 / (1 / local.value + wait);
  return { value, formula: `1 / (1 / local ${local.value.toFixed(2)} tok/s + nodes ${(wait * 1000).toFixed(1)} ms) = ${value.toFixed(2)} tok/s; local: ${local.formula}` };
}
