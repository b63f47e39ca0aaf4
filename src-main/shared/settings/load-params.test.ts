import { describe, expect, it } from 'vitest';
import { comparisonRepack, layerCallbackFor, resolvePolicy, toLoadParams } from './load-params.js';
import { DEFAULT_RUN_SETTINGS, type RunSettings } from './run-settings.js';
import { prepareLoad, type LoadMachine } from './prepare-load.js';
import { headerOnlyView } from '../gguf/tiny-models.test-util.js';
import type { MemoryPlan } from '../plan/plan-types.js';

const shape = { ctx: 2048, batch: 32, threads: 2, reasons: [] };
const plan = (verdict: MemoryPlan['verdict']) =>
  ({
    verdict,
    layers: [{ index: 0, bytes: 1, kvBytes: 1, tier: verdict === 'fits' ? 'pinned' : 'streamed', streamedBytes: 1 }],
    stream: verdict === 'fits' ? null : { tensors: ['blk.0.ffn_up.weight'], unitBytes: 1, windowBytes: 2, readaheadBytes: 0, headroomBytes: 4 },
    quantities: { computeBufferBytes: { value: 77, formula: '' }, pinnedBytes: { value: verdict === 'fits' ? 1 : 0, formula: '' } },
  }) as unknown as MemoryPlan;

describe('settings → load params', () => {
  it('auto streams exactly when the plan says the model does not fit', () => {
    expect(resolvePolicy('auto', plan('out-of-core'))).toBe('stream');
    expect(resolvePolicy('auto', plan('fits'))).toBe('off');
    expect(resolvePolicy('auto', null)).toBe('off');
    expect(resolvePolicy('conservative', plan('fits'))).toBe('conservative');
  });

  it('a model that does not fit: no repack, no prefault, the plan\'s split and the shape reach the worker', () => {
    const p = toLoadParams({ modelPath: '/m.gguf', settings: { ...DEFAULT_RUN_SETTINGS, ramBytes: 100 }, shape, plan: plan('out-of-core') });
    expect(p).toMatchObject({ policy: 'stream', repack: false, prefault: false, ctx: 2048, batch: 32, threads: 2, ramBytes: 100, tiers: ['streamed'] });
    expect(p.stream).toEqual({ tensors: ['blk.0.ffn_up.weight'], prefetchDepth: DEFAULT_RUN_SETTINGS.prefetchDepth, readaheadBytes: 0, computeReserveBytes: 77, embeddingsReserveBytes: 0 });
    // What the releasing policies keep resident is the plan's pinned bytes, wherever the load starts.
    expect(p.residencyTargetBytes).toBe(0);
    expect(toLoadParams({ modelPath: '/m.gguf', settings: DEFAULT_RUN_SETTINGS, shape, plan: null }).residencyTargetBytes).toBeUndefined();
  });

  it('--repack on a stream run that does not fit repacks the expert slots, not the load; by default neither', () => {
    const asked = toLoadParams({ modelPath: '/m.gguf', settings: { ...DEFAULT_RUN_SETTINGS, ramBytes: 100, repack: true }, shape, plan: plan('out-of-core'), policy: 'stream' });
    expect(asked.repack).toBe(false);
    expect(asked.repackExperts).toBe(true);
    const byDefault = toLoadParams({ modelPath: '/m.gguf', settings: { ...DEFAULT_RUN_SETTINGS, ramBytes: 100 }, shape, plan: plan('out-of-core'), policy: 'stream' });
    expect(byDefault.repack).toBe(false);
    expect(byDefault.repackExperts).toBeUndefined();
    // A run that fits repacks its load, experts included: nothing more to do.
    const fits = toLoadParams({ modelPath: '/m.gguf', settings: { ...DEFAULT_RUN_SETTINGS, repack: true }, shape, plan: plan('fits'), policy: 'stream' });
    expect(fits.repack).toBe(true);
    expect(fits.repackExperts).toBeUndefined();
  });

  it("a mixture of experts' routing: a trace, a file to write and, under stream out of core, the optimum reach the worker; read-ahead only when turned off", () => {
    const out = toLoadParams({ modelPath: '/m.gguf', settings: { ...DEFAULT_RUN_SETTINGS, ramBytes: 100, routingTrace: '/t.csv', routingTraceOut: '/o.csv', expertReadAhead: false }, shape, plan: plan('out-of-core') });
    expect(out.routing).toEqual({ trace: '/t.csv', out: '/o.csv', optimum: true });
    expect(out.expertReadAhead).toBe(false);
    const fits = toLoadParams({ modelPath: '/m.gguf', settings: DEFAULT_RUN_SETTINGS, shape, plan: plan('fits') });
    expect(fits.routing).toBeUndefined();
    expect(fits.expertReadAhead).toBeUndefined();
    expect(toLoadParams({ modelPath: '/m.gguf', settings: { ...DEFAULT_RUN_SETTINGS, routingTrace: '/t.csv' }, shape, plan: plan('fits'), policy: 'off' }).routing).toEqual({ trace: '/t.csv' });
  });

  it('a model that fits: repack and prefault on unless the user said otherwise', () => {
    const p = toLoadParams({ modelPath: '/m.gguf', settings: DEFAULT_RUN_SETTINGS, shape, plan: null });
    expect(p).toMatchObject({ policy: 'off', repack: true, prefault: true });
    const q = toLoadParams({ modelPath: '/m.gguf', settings: { ...DEFAULT_RUN_SETTINGS, repack: false, prefault: false }, shape, plan: null });
    expect(q).toMatchObject({ repack: false, prefault: false });
    // A releasing policy never repacks, even when asked: repacked weights cannot be released.
    const r = toLoadParams({ modelPath: '/m.gguf', settings: { ...DEFAULT_RUN_SETTINGS, repack: true, policy: 'conservative' }, shape, plan: null });
    expect(r.repack).toBe(false);
  });

  it('stream on a model its plan says fits streams nothing: repacked like off; stream without a plan or out of core never repacks', () => {
    const fits = toLoadParams({ modelPath: '/m.gguf', settings: { ...DEFAULT_RUN_SETTINGS, policy: 'stream', ramBytes: 100 }, shape, plan: plan('fits') });
    expect(fits).toMatchObject({ policy: 'stream', repack: true });
    const told = toLoadParams({ modelPath: '/m.gguf', settings: { ...DEFAULT_RUN_SETTINGS, policy: 'stream', repack: false }, shape, plan: plan('fits') });
    expect(told.repack).toBe(false);
    expect(toLoadParams({ modelPath: '/m.gguf', settings: { ...DEFAULT_RUN_SETTINGS, policy: 'stream' }, shape, plan: null }).repack).toBe(false);
    const ooc = toLoadParams({ modelPath: '/m.gguf', settings: { ...DEFAULT_RUN_SETTINGS, policy: 'stream', repack: true }, shape, plan: plan('out-of-core') });
    expect(ooc.repack).toBe(false);
  });
});

describe('a mixture of experts that fits its cap streams nothing and costs nothing', () => {
  // The Qwen3-30B-A3B shape in miniature (8 of 64 experts used), Q4_0; no graph trace, as the CLI runs.
  const view = headerOnlyView({ arch: 'llama', layers: 12, embd: 1024, heads: 16, kvHeads: 4, ff: 2816, vocab: 32000, matType: 2, experts: { count: 64, used: 8, skew: 0.35 } });
  const machine: LoadMachine = { physicalCores: 2, machineBytes: 24 * 1024 ** 3, diskBandwidthBytesPerS: 1.4e9, diskBandwidthSource: 'test', readaheadBytes: 0 };
  const prepare = (policy: RunSettings['policy'], ramBytes: number) => prepareLoad({ modelPath: '/m.gguf', view, settings: { ...DEFAULT_RUN_SETTINGS, policy, ramBytes, enforceRam: true, graphTrace: false }, machine });

  it('under a cap above the whole file: stream loads as off does — repacked, no eval callback — and a comparison of the two repacks both', () => {
    const cap = 2 * view.fileBytes;
    const stream = prepare('stream', cap);
    expect(stream.plan?.verdict).toBe('fits');
    expect(stream.plan?.moe?.cacheExpertsPerLayer).toBe(64);
    const off = prepare('off', cap);
    expect(stream.load).toMatchObject({ policy: 'stream', repack: true, ramBytes: cap });
    expect(off.load).toMatchObject({ policy: 'off', repack: true });
    expect(stream.load.stream?.tensors).toEqual([]);
    expect(layerCallbackFor(stream.load)).toBe(false);
    expect(layerCallbackFor(off.load)).toBe(false);
    expect(comparisonRepack(['off', 'stream'], null, stream.plan!.verdict)).toBe(true);
  });

  it('under half the file: stream streams, with the callback and file-backed weights, and so does a comparison beside it', () => {
    const stream = prepare('stream', Math.floor(view.fileBytes / 2));
    expect(stream.plan?.verdict).toBe('out-of-core');
    expect(stream.load.repack).toBe(false);
    expect(layerCallbackFor(stream.load)).toBe(true);
    expect(comparisonRepack(['off', 'stream'], null, stream.plan!.verdict)).toBe(false);
  });

  it('a comparison repacks only where every policy would: a releasing policy, the user\'s --no-repack, or no plan keep one file-backed layout', () => {
    expect(comparisonRepack(['off', 'stream'], null, 'fits')).toBe(true);
    expect(comparisonRepack(['off', 'conservative'], null, 'fits')).toBe(false);
    expect(comparisonRepack(['off', 'stream'], false, 'fits')).toBe(false);
    expect(comparisonRepack(['off', 'stream'], null, null)).toBe(false);
    expect(comparisonRepack(['off'], null, null)).toBe(true);
  });

  it('the graph trace and reuse-aware keep their callback whatever the plan', () => {
    const p = prepare('stream', 2 * view.fileBytes).load;
    expect(layerCallbackFor({ ...p, graphTrace: { maxEvents: 10, detail: false } })).toBe(true);
    expect(layerCallbackFor({ ...p, policy: 'reuse-aware' })).toBe(true);
  });
});
