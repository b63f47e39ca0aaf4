import { describe, expect, it } from 'vitest';
import { parseGgufHeader } from '../gguf/reader.js';
import { buildModelView, type ModelView } from '../gguf/model-view.js';
import { buildGguf, tensorBytes } from '../gguf/build-gguf.test-util.js';
import { tinySpec, type TinyOptions } from '../gguf/tiny-models.test-util.js';
import { chooseParallel } from './parallel-choice.js';
import { kvBytes } from './run-shape.js';
import { DEFAULT_RUN_SETTINGS } from './run-settings.js';

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

function headerOnlyView(o: TinyOptions): ModelView {
  const spec = tinySpec(o);
  const { bytes, offsets } = buildGguf({ ...spec, dataBytes: 0 });
  let end = 0;
  for (const t of spec.tensors ?? []) end = Math.ceil(end / 32) * 32 + tensorBytes(t);
  return buildModelView([{ path: 'm.gguf', header: parseGgufHeader(bytes, offsets.dataOffset + end) }]);
}

// The 1b preset's shape: 16 layers, 8 KV heads of 64: 32 KiB of KV cache per token.
const oneB = (): ModelView => headerOnlyView({ arch: 'llama', layers: 16, embd: 2048, heads: 32, kvHeads: 8, ff: 8192, vocab: 128256, matType: 2, ctx: 8192 });
const choose = (view: ModelView, budgetBytes: number, ctx: number | null = null) =>
  chooseParallel({ view, settings: { ...DEFAULT_RUN_SETTINGS, ctx }, budgetBytes, physicalCores: 2 });

describe('chooseParallel', () => {
  it('plenty of memory: 4 sequences at the full default context', () => {
    const c = choose(oneB(), 24 * GiB);
    expect(c.parallel).toBe(4);
    expect(c.reason).toMatch(/parallel 4 \(the KV caches of 4 sequences of 4096 tokens/);
  });

  it('the most sequences whose KV caches fit 1/8 of the budget at 512 tokens or more each', () => {
    // Small weights, a large KV cache (16 layers of 4 KV heads of 64): the KV cache decides.
    const v = headerOnlyView({ arch: 'llama', layers: 16, embd: 256, heads: 4, kvHeads: 4, ff: 512, vocab: 256, matType: 0, ctx: 4096 });
    const perSeq512 = kvBytes(v, 512);
    expect(perSeq512).toBe(8 * MiB);
    // 1/8 of the budget holds 2 sequences of 512 tokens but not 4.
    expect(choose(v, 8 * 2 * perSeq512 + MiB).parallel).toBe(2);
    expect(choose(v, 8 * 4 * perSeq512 + MiB).parallel).toBe(4);
    const one = choose(v, 8 * perSeq512 + MiB);
    expect(one.parallel).toBe(1);
    expect(one.reason).toMatch(/parallel 1 \(two sequences of at least 512 tokens would not fit/);
  });

  it('a context the user fixed must fit for every sequence', () => {
    const v = oneB();
    const budget = 8 * 2 * kvBytes(v, 2048) + MiB;
    expect(choose(v, budget, 2048).parallel).toBe(2);
    expect(choose(v, budget, 4096).parallel).toBe(1);
  });

  it('with a draft model: one sequence, whatever the budget holds', () => {
    const c = chooseParallel({ view: oneB(), settings: { ...DEFAULT_RUN_SETTINGS, draft: '/m/draft.gguf' }, budgetBytes: 24 * GiB, physicalCores: 2 });
    expect(c).toEqual({ parallel: 1, reason: 'parallel 1 (a draft model serves one sequence)' });
  });

  it('a model trained on a short context is not held to 512 tokens', () => {
    const v = headerOnlyView({ arch: 'llama', layers: 2, embd: 64, heads: 4, kvHeads: 2, ff: 128, vocab: 256, matType: 0, ctx: 128 });
    expect(choose(v, 1 * GiB).parallel).toBe(4);
  });
});
