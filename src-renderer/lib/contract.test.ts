// The renderer reads `unknown` API results through normalizers; this test feeds them the
// real documents the shared code produces (inspect --json and the planner's MemoryPlan), so a
// change of shape there fails here instead of silently blanking the UI.
import { describe, expect, it } from 'vitest';
import { inspectReport } from '../../src-main/shared/gguf/inspect-report.js';
import { buildModelView, type GgufShard } from '../../src-main/shared/gguf/model-view.js';
import { parseGgufHeader } from '../../src-main/shared/gguf/reader.js';
import { tinyModel } from '../../src-main/shared/gguf/tiny-models.test-util.js';
import { planMemory } from '../../src-main/shared/plan/plan.js';
import { normalizeInspect } from './inspect-model.js';
import { normalizePlan, tierTotals } from './plan-model.js';

function model(size: { embd: number; ff: number }) {
  const bytes = tinyModel({ arch: 'llama', layers: 6, ...size, heads: 8, kvHeads: 2, vocab: 40, matType: 8, name: 'contract-llama' });
  const shard: GgufShard = { path: '/models/contract.gguf', header: parseGgufHeader(bytes, bytes.length) };
  return { shard, view: buildModelView([shard]) };
}

describe('normalizers against the real shared documents', () => {
  it('reads ramforge inspect --json', () => {
    const { shard, view } = model({ embd: 64, ff: 128 });
    const doc: unknown = JSON.parse(JSON.stringify(inspectReport('/models/contract.gguf', [shard], view)));
    const info = normalizeInspect(doc);
    expect(info.name).toBe('contract-llama');
    expect(info.arch).toBe('llama');
    expect(info.layers.map((l) => l.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(info.layers.map((l) => l.bytes)).toEqual(view.layers.map((l) => l.bytes));
    expect(info.layers[0]!.tensors.length).toBe(view.layers[0]!.tensors.length);
    expect(info.tensorBytes).toBe(view.tensorBytes);
    expect(info.persistentBytes).toBe(view.persistent.bytes);
    expect(info.quant.reduce((s, q) => s + q.bytes, 0)).toBe(view.tensorBytes);
    expect(info.quant.reduce((s, q) => s + q.count, 0)).toBe(shard.header.tensors.length);
    expect(info.vocabSize).toBe(40);
    expect(info.metadata.find((m) => m.key === 'general.architecture')?.value).toBe('llama');
  });

  it('reads the planner’s MemoryPlan for a cap that forces streaming', () => {
    // Tensors big enough to stream (the planner never streams tensors under 256 KiB).
    const { view } = model({ embd: 512, ff: 1024 });
    const total = view.tensorBytes;
    const fits = planMemory(view, { ramBytes: 64 * 1024 ** 3, ctx: 256, diskBandwidthBytesPerS: 1e9 });
    const a = normalizePlan(JSON.parse(JSON.stringify(fits)));
    expect(a.verdict).toBe('fits');
    expect(a.layers).toHaveLength(6);
    expect(a.layers.every((l) => l.tier === 'pinned')).toBe(true);
    expect(a.bytesPerToken).toBe(fits.quantities.bytesReadPerToken.value);
    expect(a.tokS).toBe(fits.quantities.predictedDecodeTokS.value);
    expect(a.minCapBytes).toBe(fits.quantities.minimumRamBytes.value);
    expect(a.formula.some((f) => f.startsWith('bytesReadPerToken: '))).toBe(true);

    // A cap between the minimum and full residency: some layers must stream.
    const min = fits.quantities.minimumRamBytes.value!;
    const full = fits.quantities.fullResidencyRamBytes.value!;
    const cap = Math.floor((min + full) / 2);
    const tight = planMemory(view, { ramBytes: cap, ctx: 256, diskBandwidthBytesPerS: 1e9 });
    const b = normalizePlan(JSON.parse(JSON.stringify(tight)));
    expect(tight.tiers.streamed.layers.length).toBeGreaterThan(0);
    expect(b.verdict).toBe(tight.verdict);
    expect(b.layers.map((l) => l.tier)).toEqual(tight.layers.map((l) => l.tier));
    // Only part of a streamed layer streams: the plan bar counts the streamed part alone.
    expect(tierTotals(b.layers).streamed).toBe(tight.quantities.bytesReadPerToken.value);
    expect(tierTotals(b.layers).streamed).toBeLessThan(tight.tiers.streamed.bytes);
    expect(b.floorBytesPerToken).toBe(tight.quantities.floorBytesPerToken.value);
    expect(b.stream).toEqual({ tensors: tight.stream!.tensors.length, unitBytes: tight.stream!.unitBytes, windowBytes: tight.stream!.windowBytes, headroomBytes: tight.stream!.headroomBytes });
    expect(b.shape).toEqual({ ctx: 256, batch: tight.input.ubatch, threads: null });
    expect(b.budgetBytes).toBe(cap);
    expect(total).toBeGreaterThan(0);
  });
});
