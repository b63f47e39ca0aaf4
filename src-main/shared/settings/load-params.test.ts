import { describe, expect, it } from 'vitest';
import { resolvePolicy, toLoadParams } from './load-params.js';
import { DEFAULT_RUN_SETTINGS } from './run-settings.js';
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
