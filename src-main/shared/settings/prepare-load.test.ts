import { describe, expect, it } from 'vitest';
import { BelowMinimumError, ShapeTooLargeError, prepareLoad, refuseRpcWithVram, type LoadMachine } from './prepare-load.js';
import { DEFAULT_RUN_SETTINGS, type RunSettings } from './run-settings.js';
import { parseGgufHeader } from '../gguf/reader.js';
import { buildModelView, type ModelView } from '../gguf/model-view.js';
import { buildGguf, tensorBytes } from '../gguf/build-gguf.test-util.js';
import { tinySpec } from '../gguf/tiny-models.test-util.js';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** Llama-3-8B's shape at Q4_0 from its header alone (the payload is never made). */
function eightB(): ModelView {
  const spec = tinySpec({ arch: 'llama', layers: 32, embd: 4096, heads: 32, kvHeads: 8, ff: 14336, vocab: 32000, matType: 2 });
  const { bytes, offsets } = buildGguf({ ...spec, dataBytes: 0 });
  let end = 0;
  for (const t of spec.tensors ?? []) end = Math.ceil(end / 32) * 32 + tensorBytes(t);
  return buildModelView([{ path: 'm.gguf', header: parseGgufHeader(bytes, offsets.dataOffset + end) }]);
}

const machine: LoadMachine = { physicalCores: 2, machineBytes: 24 * GiB, diskBandwidthBytesPerS: 2e9, diskBandwidthSource: 'test', readaheadBytes: 0 };
const prepare = (s: Partial<RunSettings>, m = machine, force = false) => prepareLoad({ modelPath: '/m.gguf', view: eightB(), settings: { ...DEFAULT_RUN_SETTINGS, ...s }, machine: m, force });

describe('prepareLoad: one preparation for every path that loads', () => {
  it('the shape it chose is the load\'s, and the plan it made is the load\'s', () => {
    const p = prepare({ ramBytes: 2 * GiB, enforceRam: true });
    expect(p.plan?.verdict).toBe('out-of-core');
    expect(p.load).toMatchObject({ ctx: p.shape.ctx, batch: p.shape.batch, threads: p.shape.threads, policy: 'stream', ramBytes: 2 * GiB });
    expect(p.load.stream?.tensors).toEqual(p.plan?.stream?.tensors);
    expect(p.load.residencyTargetBytes).toBe(p.plan?.quantities.pinnedBytes.value);
  });

  it('an enforced cap below the minimum is refused with the smallest cap, and the smaller shape when it needs less', () => {
    let err: unknown = null;
    try {
      prepare({ ramBytes: 300 * MiB, enforceRam: true, ctx: 4096, batch: 512 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BelowMinimumError);
    const b = err as BelowMinimumError;
    expect(b.capBytes).toBe(300 * MiB);
    expect(b.shape).toEqual({ ctx: 4096, batch: 512 });
    expect(b.minimumBytes).toBeGreaterThan(300 * MiB);
    expect(b.smallShape?.minimumBytes).toBeLessThan(b.minimumBytes);
    expect(b.message).toMatch(/below the smallest cap that runs this model with context 4096 and micro-batch 512: .*Nothing was loaded/);
    // The named cap runs (the refusal is exact, not a guess).
    expect(prepare({ ramBytes: b.minimumBytes, enforceRam: true, ctx: 4096, batch: 512 }).plan?.verdict).not.toBe('cannot-run');
  });

  it('only under an enforced cap, and never when forced: an advisory budget plans whatever it can', () => {
    expect(prepare({ ramBytes: 300 * MiB, ctx: 4096, batch: 512 }).plan?.verdict).toBe('cannot-run');
    expect(prepare({ ramBytes: 300 * MiB, enforceRam: true, ctx: 4096, batch: 512 }, machine, true).plan?.verdict).toBe('cannot-run');
  });

  it('a context larger than the machine is refused, with or without a budget', () => {
    const small = { ...machine, machineBytes: 8 * GiB };
    for (const s of [{ ctx: 1 << 20 }, { ctx: 1 << 20, ramBytes: 4 * GiB }]) {
      expect(() => prepare(s, small)).toThrow(ShapeTooLargeError);
      expect(() => prepare(s, small)).toThrow(/a context of 1048576 tokens needs .* more than this machine's/);
    }
  });
});

describe('layers on RPC nodes with a VRAM tier', () => {
  it('is refused before anything loads, with the way out', () => {
    const s = { ...DEFAULT_RUN_SETTINGS, rpc: ['10.0.0.2:50052'] };
    expect(() => refuseRpcWithVram(s, { vramBytes: 1 << 30 })).toThrow(/--gpu none and no --vram with --rpc/);
    expect(() => refuseRpcWithVram(s, {})).not.toThrow();
    expect(() => refuseRpcWithVram({ ...s, rpc: [] }, { vramBytes: 1 << 30 })).not.toThrow();
  });
});
