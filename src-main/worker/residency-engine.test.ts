// The residency engine on a real model: per-layer residency it reports must match mincore
// truth taken through an independent view of the file, after prefetching and dropping known
// layers; and the stream schedule must leave greedy tokens bit-identical to `off`, keep the
// locked weights resident, and never bring a streamed weight into the page cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAddon, type NativeContext, type NativeModel } from '../native/addon.js';
import { buildInventory, parseMaps, type Inventory } from '../shared/residency/inventory.js';
import { buildStreamLayout } from '../shared/residency/stream-units.js';
import { synthesize } from '../synth/synthesize.js';

const PAGE = 4096;
let dir = '';
let path = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ramforge-residency-'));
  path = join(dir, 'm.gguf');
  await synthesize({ arch: 'llama', preset: 'tiny', type: 'Q4_0', seed: 5, out: path, overrides: { nLayer: 6 } });
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function open(observe: boolean): Promise<{ model: NativeModel; ctx: NativeContext; inv: Inventory }> {
  const addon = loadAddon();
  // No repack: repacked weights leave the file mapping and could not be released.
  const model = await addon.loadModel([path], { mmap: true, repack: false });
  const ctx = model.createContext({ nCtx: 256, nThreads: 2, observeLayers: observe });
  const maps = parseMaps(readFileSync('/proc/self/maps', 'utf8'), [realpathSync(path)]);
  const inv = buildInventory(model.tensors(), maps, model.info().nLayers, PAGE);
  return { model, ctx, inv };
}

/** Truth: page-cache residency of each layer's exclusive file ranges, through a fresh mapping. */
function truth(inv: Inventory): number[] {
  const addon = loadAddon();
  return inv.layers.map((l) => addon.fileResident(path, l.ranges.map((r) => [r[3], r[1]] as [number, number])).reduce((a, b) => a + b, 0));
}

describe('residency engine', () => {
  it('inventories every weight as file-mapped when not repacked', async () => {
    const { model, ctx, inv } = await open(false);
    try {
      expect(inv.anonymousBytes).toBe(0);
      expect(inv.layers).toHaveLength(6);
      for (const l of inv.layers) {
        expect(l.ranges.length).toBeGreaterThan(0);
        const exclusive = l.ranges.reduce((s, r) => s + r[1], 0);
        // Exclusive pages cover the layer minus at most its two boundary pages.
        expect(exclusive).toBeGreaterThanOrEqual(l.bytes - 2 * PAGE);
        expect(exclusive).toBeLessThanOrEqual(l.bytes + PAGE);
      }
    } finally {
      ctx.free();
      model.free();
    }
  });

  it('reports per-layer residency that matches mincore truth after prefetching and dropping known layers', async () => {
    const { model, ctx, inv } = await open(true);
    try {
      ctx.residencyConfigure({
        policy: 'observe',
        files: [path],
        targetBytes: 0,
        layers: inv.layers.map((l) => ({ index: l.index, tier: l.index < 2 ? 0 : 1, ranges: l.ranges })),
      });
      for (let i = 0; i < 6; i++) ctx.residencyPrefetch(i);
      const dropped = [2, 4];
      for (const i of dropped) expect(ctx.residencyDrop(i)).toBeGreaterThan(0);
      const reported = ctx.residencySample().layerResident;
      const actual = truth(inv);
      expect(reported).toEqual(actual);
      for (let i = 0; i < 6; i++) {
        const full = inv.layers[i]!.ranges.reduce((s, r) => s + r[1], 0);
        if (dropped.includes(i)) {
          expect(reported[i]).toBe(0);
          expect(actual[i]).toBe(0);
        } else {
          expect(reported[i]).toBe(full);
          expect(actual[i]).toBe(full);
        }
      }
    } finally {
      ctx.free();
      model.free();
    }
  });

  it.each(['llama', 'qwen2', 'gptneox'] as const)('streams %s: tokens identical to off, locked weights stay resident, streamed weights never enter the page cache', async (arch) => {
    if (arch !== 'llama') {
      path = join(dir, `${arch}.gguf`);
      await synthesize({ arch, preset: 'tiny', type: 'Q4_0', seed: 5, out: path, overrides: { nLayer: 6 } });
    }
    const prompt = [1, 20, 300, 4000, 50];
    const greedy = { maxTokens: 12, temperature: 0, topK: 0, topP: 1, minP: 0, seed: 1, repeatPenalty: 1, repeatLastN: 0 };
    const off = await open(false);
    const offTokens = (await off.ctx.generate(prompt, greedy)).tokens;
    off.ctx.free();
    off.model.free();

    const addon = loadAddon();
    const model = await addon.loadModel([path], { mmap: true, repack: false });
    // The schedule's points of use come from the scheduler's eval callback.
    const ctx = model.createContext({ nCtx: 256, nThreads: 2, observeLayers: true, layerCallback: true });
    const maps = parseMaps(readFileSync('/proc/self/maps', 'utf8'), [realpathSync(path)]);
    const inv = buildInventory(model.tensors(), maps, model.info().nLayers, PAGE);
    try {
      // Layers 3..5 stream every tensor large enough to; everything else is locked.
      const streamed = inv.tensors.filter((t) => t.layer >= 3 && t.bytes >= 64 * 1024).map((t) => t.name);
      expect(streamed.length).toBeGreaterThan(6);
      const layout = buildStreamLayout(inv, streamed, 1 << 20, []);
      ctx.residencyConfigure({
        policy: 'stream',
        files: [path],
        targetBytes: 0,
        layers: inv.layers.map((l) => ({ index: l.index, tier: l.index < 3 ? 0 : 1, ranges: l.ranges })),
        stream: { units: layout.units.map((u) => ({ layer: u.layer, file: u.file, tensors: u.tensors })), windowBytes: 2 << 20, pinned: layout.pinned, random: layout.random, ioThreads: 2 },
      });
      const r = await ctx.generate(prompt, greedy);
      expect(r.tokens).toEqual(offTokens);
      const s = ctx.residencySample();
      // What the engine did, in every failure message: a failure says which part of it broke.
      const why = JSON.stringify({ units: layout.units.length, pinnedResident: s.pinnedResident, counters: s.counters });
      // Every streamed unit was read once per pass: the prompt's pass and each decoded token's.
      expect(s.counters.prefetches, why).toBeGreaterThanOrEqual(layout.units.length * (greedy.maxTokens - 1));
      expect(s.counters.releases, why).toBeGreaterThanOrEqual(layout.units.length * (greedy.maxTokens - 1));
      expect(s.counters.readErrors, why).toBe(0);
      expect(s.pinnedResident, why).toBe(s.counters.pinnedBytes);
      expect(s.counters.pinnedLockedBytes, why).toBe(s.counters.pinnedBytes);
      // Streamed tensors are read past the page cache into the window: their file pages are not cached.
      const cached = inv.tensors
        .filter((t) => streamed.includes(t.name))
        .map((t) => ({ name: t.name, cached: addon.fileResident(path, [[(t.fileOffset as number) + PAGE, Math.max(0, t.bytes - 2 * PAGE)]])[0] as number }));
      expect(cached.filter((c) => c.cached > 0), why).toEqual([]);
    } finally {
      ctx.free();
      model.free();
    }
  });
});
