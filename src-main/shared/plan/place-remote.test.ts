import { describe, expect, it } from 'vitest';
import { HEAD_TENSOR_PATTERNS, placeRemote, RPC_GRAPH_BYTES_PER_LAYER, RPC_NODE_RESERVE_BYTES, type RemoteLayerCost } from './place-remote.js';
import { planMemory } from './plan.js';
import { headBytes } from './place-vram.js';
import { parseGgufHeader } from '../gguf/reader.js';
import { buildModelView, type ModelView } from '../gguf/model-view.js';
import { buildGguf, tensorBytes } from '../gguf/build-gguf.test-util.js';
import { tinySpec } from '../gguf/tiny-models.test-util.js';
import type { RpcNodeInfo } from '../remote/rpc-endpoint.js';

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;
const node = (endpoint: string, freeBytes: number): RpcNodeInfo => ({ endpoint, version: { major: 7, minor: 0, patch: 0 }, devices: 1, freeBytes, totalBytes: freeBytes });
const layers = (n: number, bytes: number, kvBytes = 0, largestTensorBytes = 0): RemoteLayerCost[] => Array.from({ length: n }, (_, index) => ({ index, bytes, kvBytes, largestTensorBytes }));
const base = { computeBytes: 10 * MiB, headBytes: 0, nEmbd: 1024, nVocab: 32000, ramBandwidthBytesPerS: 20e9 };

describe('placeRemote', () => {
  it('nodes that hold more than there is share the layers in proportion to what they offer, the last layers on the last node', () => {
    const r = placeRemote({ ...base, nodes: [node('a:1', 4 * GiB), node('b:2', 4 * GiB)], layers: layers(16, 100 * MiB) });
    expect(r.nodes.map((n) => n.layers)).toEqual([
      [0, 1, 2, 3, 4, 5, 6, 7],
      [8, 9, 10, 11, 12, 13, 14, 15],
    ]);
    expect(r.layerCount).toBe(16);
    // n_gpu_layers positions: the head is the last, with the last block.
    expect(r.split).toEqual([8, 9]);
  });

  it('the node with the last block holds the output head too, within its budget, when that offloads more', () => {
    const budget = 3 * 100 * MiB + base.computeBytes + RPC_NODE_RESERVE_BYTES;
    const r = placeRemote({ ...base, headBytes: 50 * MiB, nodes: [node('a:1', budget), node('b:2', budget)], layers: layers(16, 100 * MiB, 0, 50 * MiB) });
    // b: the head, room to receive a 50 MiB tensor, two layers; a: two layers and the same room.
    expect(r.nodes.map((n) => n.layers)).toEqual([
      [12, 13],
      [14, 15],
    ]);
    expect(r.nodes.map((n) => n.headBytes)).toEqual([0, 50 * MiB]);
    expect(r.split).toEqual([2, 3]);
    expect(r.cpuTensors).toEqual([]);
  });

  it('a head too large to move with the last block stays here, kept on the CPU by name', () => {
    const budget = 3 * 100 * MiB + base.computeBytes + RPC_NODE_RESERVE_BYTES;
    const r = placeRemote({ ...base, headBytes: 250 * MiB, nodes: [node('a:1', budget), node('b:2', budget)], layers: layers(16, 100 * MiB) });
    expect(r.nodes.map((n) => n.layers)).toEqual([
      [10, 11, 12],
      [13, 14, 15],
    ]);
    expect(r.nodes.every((n) => n.headBytes === 0)).toBe(true);
    expect(r.cpuTensors).toEqual([...HEAD_TENSOR_PATTERNS]);
    expect(new RegExp(r.cpuTensors[0]!).test('output.weight')).toBe(true);
  });

  it("a node keeps room to receive its largest tensor (ggml's server holds it twice while it arrives)", () => {
    const budget = 4 * 100 * MiB + base.computeBytes + RPC_NODE_RESERVE_BYTES;
    const r = placeRemote({ ...base, headBytes: 100 * MiB, nodes: [node('a:1', budget)], layers: layers(8, 100 * MiB, 0, 50 * MiB) });
    // Head 100 + 2 layers of 100 + room for the head (100) arriving = 400.
    expect(r.nodes[0]!.layers).toEqual([6, 7]);
    expect(r.nodes[0]!.receiveBytes).toBe(100 * MiB);
  });

  it('nodes that hold less are filled from the last layer back; the first layers stay local and the run is contiguous', () => {
    const budget = 3 * 100 * MiB + base.computeBytes + RPC_NODE_RESERVE_BYTES;
    const r = placeRemote({ ...base, nodes: [node('a:1', budget), node('b:2', budget + 50 * MiB)], layers: layers(16, 90 * MiB, 10 * MiB) });
    expect(r.nodes.map((n) => n.layers)).toEqual([
      [10, 11, 12],
      [13, 14, 15],
    ]);
    expect(r.layerCount).toBe(6);
    for (const n of r.nodes) expect(n.weightBytes + n.kvBytes).toBeLessThanOrEqual(n.budgetBytes);
  });

  it("a node's budget is what it offers less its compute buffer and the server's reserve; one too small for a layer gets none", () => {
    const r = placeRemote({ ...base, nodes: [node('a:1', 50 * MiB), node('b:2', 1 * GiB)], layers: layers(4, 200 * MiB) });
    expect(r.nodes[0]!.budgetBytes).toBe(50 * MiB - base.computeBytes - RPC_NODE_RESERVE_BYTES);
    expect(r.nodes[0]!.layers).toEqual([]);
    expect(r.nodes[1]!.layers).toEqual([0, 1, 2, 3]);
    expect(r.split).toEqual([0, r.nodes[1]!.layers.length + 1]);
  });

  it('the time a token waits on the nodes counts their compute and a round trip per node used', () => {
    const r = placeRemote({ ...base, headBytes: 1, nodes: [node('a:1', 4 * GiB), node('b:2', 4 * GiB)], layers: layers(4, 100 * MiB) });
    // Each node: the hidden state in, its graph, the hidden state out; the last sends the logits back.
    expect(r.networkBytesPerToken.value).toBe(2 * 1024 * 4 + 4 * RPC_GRAPH_BYTES_PER_LAYER + 1024 * 4 + 32000 * 4);
    expect(r.remoteSecondsPerToken.value).toBeGreaterThan((400 * MiB) / 20e9);
  });
});

function view(): ModelView {
  const spec = tinySpec({ arch: 'llama', layers: 8, embd: 1024, heads: 16, kvHeads: 4, ff: 2816, vocab: 32000, matType: 2 });
  const { bytes, offsets } = buildGguf({ ...spec, dataBytes: 0 });
  let end = 0;
  for (const t of spec.tensors ?? []) end = Math.ceil(end / 32) * 32 + tensorBytes(t);
  return buildModelView([{ path: 'model.gguf', header: parseGgufHeader(bytes, offsets.dataOffset + end) }]);
}

describe('planMemory with RPC nodes', () => {
  const input = { ctx: 1024, diskBandwidthBytesPerS: 2 * GiB, ramBytes: 160 * MiB };
  it('the last layers are remote, their weights and KV leave the local budget, the first layers keep the local schedule', () => {
    const v = view();
    const local = planMemory(v, input);
    const layerBytes = v.layers[0]!.bytes;
    const largest = Math.max(...v.layers[0]!.tensors.map((t) => t.nbytes));
    const nodeFree = 3 * (layerBytes + local.layers[0]!.kvBytes) + local.quantities.computeBufferBytes.value! + RPC_NODE_RESERVE_BYTES + largest;
    const p = planMemory(v, { ...input, remote: [node('a:1', nodeFree), node('b:2', nodeFree - largest + 2 * headBytes(v).bytes)] });
    expect(p.layers.map((l) => l.tier).slice(2)).toEqual(Array(6).fill('remote'));
    expect(p.layers.slice(0, 2).every((l) => l.tier !== 'remote')).toBe(true);
    expect(p.tiers.remote?.layers).toEqual([2, 3, 4, 5, 6, 7]);
    expect(p.remote?.split).toEqual([3, 4]);
    expect(p.quantities.kvRamBytes.value).toBe(2 * local.layers[0]!.kvBytes);
    // What stays local streams less than the whole model did.
    expect(p.quantities.bytesReadPerToken.value!).toBeLessThan(local.quantities.bytesReadPerToken.value!);
    expect(p.quantities.predictedDecodeTokS.formula).toMatch(/nodes .* ms/);
  });
});
