import { describe, expect, it } from 'vitest';
import { buildInventory, type LoadedTensor } from './inventory.js';
import { heldAt, outsideSpecs, readBytesPerTokenByLayer, residencyRowSpecs, residencyRows, type RowSpecInput } from './residency-model.js';
import { buildStreamLayout } from './stream-units.js';
import { sample } from '../../../src-renderer/lib/sample.test-util.js';
import type { Tier } from '../residency-types.js';

const P = 4096;
const BASE = 0x7f0000000000;
const MIB = 2 ** 20;

/** Tensors laid out one after another, page aligned, in RAM unless a buffer says otherwise. */
function tensors(list: [string, number, string?][]): LoadedTensor[] {
  let at = BASE;
  return list.map(([name, bytes, buffer]) => {
    const t = { name, type: 'q8_0', bytes, addr: at, host: buffer === undefined, buffer: buffer ?? 'CPU_Mapped' };
    at += Math.ceil(bytes / P) * P;
    return t;
  });
}

const DENSE: [string, number, string?][] = [
  ['token_embd.weight', 8 * MIB],
  ['blk.0.attn_q.weight', 2 * MIB],
  ['blk.0.ffn_up.weight', 4 * MIB],
  ['blk.1.attn_q.weight', 2 * MIB],
  ['blk.1.ffn_up.weight', 4 * MIB],
  ['output_norm.weight', P],
  ['output.weight', 8 * MIB],
];

function specsOf(list: [string, number, string?][], tiers: Tier[], more: Partial<RowSpecInput> = {}) {
  const loaded = tensors(list);
  const inv = buildInventory(loaded, [{ file: 0, start: BASE, end: BASE + 1024 * MIB, offset: 0 }], tiers.length, P);
  return { inv, specs: residencyRowSpecs({ inventory: inv, tiers, locked: new Set(), streamed: new Set(), expertCache: null, ...more }) };
}

describe('the residency model', () => {
  it('gives the token embeddings, the output head and the output norm rows of their own, beside each layer', () => {
    const { specs } = specsOf(DENSE, ['pinned', 'pinned']);
    expect(specs.map((s) => s.key)).toEqual(['blk.0', 'blk.1', 'token_embd', 'output', 'output_norm']);
    expect(specs.map((s) => s.bytes)).toEqual([6 * MIB, 6 * MIB, 8 * MIB, 8 * MIB, P]);
    expect(outsideSpecs(specs).map((s) => s.name)).toEqual(['token embeddings', 'output head', 'output norm']);
  });

  it('a capped dense run: the locked pages counted once as locked, the rest of the mapping as mapped, the head included', () => {
    const { inv, specs: plain } = specsOf(DENSE, ['pinned', 'streamed']);
    // The stream schedule streams layer 1's ffn_up and locks every other weight but token_embd (read by rows).
    const layout = buildStreamLayout(inv, ['blk.1.ffn_up.weight'], 4 * MIB, ['token_embd.weight']);
    const specs = residencyRowSpecs({ inventory: inv, tiers: ['pinned', 'streamed'], locked: new Set(layout.lockedTensors), streamed: new Set(['blk.1.ffn_up.weight']), expertCache: null });
    expect(plain.every((s) => s.lockedBytes === 0)).toBe(true);
    expect(specs.map((s) => [s.key, s.lockedBytes, s.streamedBytes])).toEqual([
      ['blk.0', 6 * MIB, 0],
      ['blk.1', 2 * MIB, 4 * MIB],
      ['token_embd', 0, 0],
      ['output', 8 * MIB, 0],
      ['output_norm', P, 0],
    ]);
    // mincore sees every locked page, and 1 MiB of token_embd's rows the kernel kept.
    const s = sample({ token: 3, layerResident: [6 * MIB, 2 * MIB], outsideResident: [1 * MIB, 8 * MIB, P] });
    const rows = residencyRows(specs, [sample({ token: 1 }), s], true);
    expect(rows.map((r) => r.held)).toEqual([
      { vram: 0, remote: 0, locked: 6 * MIB, experts: 0, mapped: 0 },
      { vram: 0, remote: 0, locked: 2 * MIB, experts: 0, mapped: 0 },
      { vram: 0, remote: 0, locked: 0, experts: 0, mapped: 1 * MIB },
      { vram: 0, remote: 0, locked: 8 * MIB, experts: 0, mapped: 0 },
      { vram: 0, remote: 0, locked: P, experts: 0, mapped: 0 },
    ]);
    expect(rows.map((r) => r.mainTier)).toEqual(['locked', 'locked', 'mapped', 'locked', 'locked']);
    // token_embd is read a row per token through page faults nothing counts per tensor: unknown; the locked head reads nothing.
    expect(rows.slice(2).map((r) => r.readBytesPerToken)).toEqual([null, 0, 0]);
  });

  it('an MoE run: the experts in a layer’s slots are held by that layer', () => {
    const moe: [string, number, string?][] = [['blk.0.attn_q.weight', 1 * MIB], ['blk.0.ffn_up_exps.weight', 8 * MIB], ['blk.0.ffn_down_exps.weight', 8 * MIB], ['output.weight', 2 * MIB]];
    const { specs } = specsOf(moe, ['pinned'], { expertCache: { tensors: new Set(['blk.0.ffn_up_exps.weight', 'blk.0.ffn_down_exps.weight']), experts: 8 } });
    expect(specs[0]!.expertBytes).toBe(2 * MIB);
    // Three of four slots hold an expert (-1: empty or being read); the mapping holds none of the layer.
    const s = sample({ layerResident: [0], outsideResident: [2 * MIB], experts: { ...EXPERTS, resident: [{ layer: 0, slots: [5, -1, 0, 7], uses: [] }] } });
    const [layer] = residencyRows(specs, [s], true);
    expect(layer!.held).toEqual({ vram: 0, remote: 0, locked: 0, experts: 6 * MIB, mapped: 0 });
    expect(layer!.mainTier).toBe('experts');
    // The expert cache's reads are not counted per layer: unknown, never 0.
    expect(layer!.readBytesPerToken).toBeNull();
  });

  it('a VRAM run: the device’s tensors are held in VRAM whatever mincore sees', () => {
    const { specs } = specsOf([['blk.0.attn_q.weight', 4 * MIB], ['blk.1.attn_q.weight', 4 * MIB, 'Vulkan0'], ['output.weight', 2 * MIB, 'Vulkan0']], ['pinned', 'vram']);
    const rows = residencyRows(specs, [sample({ layerResident: [4 * MIB, 0], outsideResident: [0] })], false);
    expect(rows.map((r) => [r.key, r.held.vram, r.mainTier])).toEqual([
      ['blk.0', 0, 'mapped'],
      ['blk.1', 4 * MIB, 'vram'],
      ['output', 2 * MIB, 'vram'],
    ]);
  });

  it('an RPC run: a node’s tensors are held on that node, by endpoint', () => {
    const { specs } = specsOf([['blk.0.attn_q.weight', 4 * MIB], ['blk.1.attn_q.weight', 4 * MIB, 'RPC0[127.0.0.1:50052]'], ['output.weight', 2 * MIB, 'RPC1[10.0.0.2:50053]']], ['pinned', 'remote']);
    expect(specs.map((s) => s.remote)).toEqual([[], [{ endpoint: '127.0.0.1:50052', bytes: 4 * MIB }], [{ endpoint: '10.0.0.2:50053', bytes: 2 * MIB }]]);
    const held = heldAt(specs, specs[1]!, null);
    expect(held).toEqual({ vram: 0, remote: 4 * MIB, locked: 0, experts: 0, mapped: null });
  });

  it('reads per token per layer come from the stream schedule’s reads in decode, the prompt’s pass left out', () => {
    const read = (layer: number, bytes: number) => ({ tMs: 0, kind: 'prefetch' as const, layer, bytes });
    const samples = [
      sample({ token: 1, events: [read(1, 100 * MIB)] }),
      sample({ token: 3, events: [read(1, 8 * MIB), read(1, 8 * MIB)] }),
      sample({ token: 5, events: [read(1, 8 * MIB), read(0, 2 * MIB), read(1, 8 * MIB)] }),
    ];
    expect(readBytesPerTokenByLayer(samples, true)).toEqual(new Map([[1, 8 * MIB], [0, MIB / 2]]));
    // Nothing observes the reads without the stream schedule: unknown, never 0.
    expect(readBytesPerTokenByLayer(samples, false)).toBeNull();
    const { specs } = specsOf(DENSE, ['pinned', 'streamed']);
    expect(residencyRows(specs, samples, false).every((r) => r.readBytesPerToken === null)).toBe(true);
    expect(residencyRows(specs, samples, true).slice(0, 2).map((r) => r.readBytesPerToken)).toEqual([MIB / 2, 8 * MIB]);
  });
});

const EXPERTS = { routed: 0, hits: 0, prefetchHits: 0, loads: 0, prefetches: 0, readBytes: 0, ioBusyMs: 0, stalls: 0, stallMs: 0, predicted: 0, predictedRight: 0, staged: 0, prefetchDropped: 0, prefetchWastedBytes: 0, predictions: 0, predictionsIssued: 0, repackedProjections: 0, promoted: 0, skipped: 0, skippedWeight: 0, warmed: 0, deviceHits: 0, uploads: 0, uploadBytes: 0 };
