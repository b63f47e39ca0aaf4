import { describe, expect, it } from 'vitest';
import { parseGgufHeader } from '../gguf/reader.js';
import { buildModelView, type ModelView } from '../gguf/model-view.js';
import { buildGguf, tensorBytes } from '../gguf/build-gguf.test-util.js';
import { tinySpec, type TinyOptions } from '../gguf/tiny-models.test-util.js';
import { chooseRunShape, MIN_SHRUNK_UBATCH } from './run-shape.js';
import { DEFAULT_RUN_SETTINGS, type RunSettings } from './run-settings.js';
import { planMemory } from '../plan/plan.js';

const MiB = 1024 ** 2;

function headerOnlyView(o: TinyOptions): ModelView {
  const spec = tinySpec(o);
  const { bytes, offsets } = buildGguf({ ...spec, dataBytes: 0 });
  let end = 0;
  for (const t of spec.tensors ?? []) end = Math.ceil(end / 32) * 32 + tensorBytes(t);
  return buildModelView([{ path: 'm.gguf', header: parseGgufHeader(bytes, offsets.dataOffset + end) }]);
}

// The 1b preset's shape: 16 layers, 2048 wide, 128k vocabulary, trained context 8192.
const oneB = (): ModelView =>
  headerOnlyView({ arch: 'llama', layers: 16, embd: 2048, heads: 32, kvHeads: 8, ff: 8192, vocab: 128256, matType: 2, ctx: 8192 });
const settings = (s: Partial<RunSettings>): RunSettings => ({ ...DEFAULT_RUN_SETTINGS, ...s });

describe('chooseRunShape', () => {
  it('without a budget: llama.cpp-like defaults, threads = physical cores', () => {
    const s = chooseRunShape({ view: oneB(), settings: settings({}), physicalCores: 6 });
    expect(s).toMatchObject({ ctx: 4096, batch: 512, threads: 6 });
    expect(s.reasons.join('\n')).toMatch(/physical cores/);
  });

  it('under a cap of half the model: ctx 2048 kept, the micro-batch shrunk until the compute buffer is within 1/16 of the cap', () => {
    const v = oneB();
    const cap = Math.floor(v.fileBytes / 2);
    const s = chooseRunShape({ view: v, settings: settings({ ramBytes: cap }), physicalCores: 2 });
    expect(s.ctx).toBe(2048);
    expect(s.batch).toBeGreaterThanOrEqual(32);
    expect(s.batch).toBeLessThan(512);
    expect(s.reasons.some((r) => /micro-batch \d+ \(compute buffer/.test(r))).toBe(true);
    const plan = planMemory(v, { ramBytes: cap, ctx: s.ctx, ubatch: s.batch, diskBandwidthBytesPerS: 1e9 });
    expect(plan.quantities.computeBufferBytes.value as number).toBeLessThanOrEqual(cap / 16);
    expect(plan.verdict).toBe('out-of-core');
  });

  it('what the user fixed is kept, whatever the cap', () => {
    const v = oneB();
    const s = chooseRunShape({ view: v, settings: settings({ ramBytes: 100 * MiB, ctx: 8192, batch: 256, threads: 3 }), physicalCores: 2 });
    expect(s).toMatchObject({ ctx: 8192, batch: 256, threads: 3 });
  });

  it('below the minimum at ctx 2048, the context shrinks until the run fits', () => {
    const v = oneB();
    const tight = planMemory(v, { ramBytes: 1 << 40, ctx: 256, ubatch: 32, diskBandwidthBytesPerS: 1e9 }).quantities.minimumRamBytes.value as number;
    const s = chooseRunShape({ view: v, settings: settings({ ramBytes: tight + MiB }), physicalCores: 2 });
    expect(s.ctx).toBeLessThan(2048);
    expect(planMemory(v, { ramBytes: tight + MiB, ctx: s.ctx, ubatch: s.batch, diskBandwidthBytesPerS: 1e9 }).verdict).not.toBe('cannot-run');
    expect(s.reasons.join('\n')).toMatch(/smallest that runs/);
  });

  it('just below the minimum at ctx 256, the micro-batch goes under 32 (never under 8) and the run fits; far below, it is refused', () => {
    const v = oneB();
    const tight = planMemory(v, { ramBytes: 1 << 40, ctx: 256, ubatch: 32, diskBandwidthBytesPerS: 1e9 }).quantities.minimumRamBytes.value as number;
    const s = chooseRunShape({ view: v, settings: settings({ ramBytes: tight - 2 * MiB }), physicalCores: 2 });
    expect(s.ctx).toBe(256);
    expect(s.batch).toBeLessThan(32);
    expect(s.batch).toBeGreaterThanOrEqual(MIN_SHRUNK_UBATCH);
    expect(s.reasons.join('\n')).toMatch(/micro-batch \d+ \(the smallest that runs under the cap/);
    expect(planMemory(v, { ramBytes: tight - 2 * MiB, ctx: s.ctx, ubatch: s.batch, diskBandwidthBytesPerS: 1e9 }).verdict).not.toBe('cannot-run');
    const far = chooseRunShape({ view: v, settings: settings({ ramBytes: tight / 2 }), physicalCores: 2 });
    expect(far.batch).toBe(MIN_SHRUNK_UBATCH);
    expect(planMemory(v, { ramBytes: tight / 2, ctx: far.ctx, ubatch: far.batch, diskBandwidthBytesPerS: 1e9 }).verdict).toBe('cannot-run');
  });
});
