// A model's weights outlive every context made from them: freeing the model while a context
// lives is refused with BUSY (the count of live contexts in the message), the contexts keep
// decoding the same tokens from the same weights, and once they are freed the model frees.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAddon, type NativeContext } from './addon.js';
import { synthesize } from '../synth/synthesize.js';

let dir = '';
let path = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ramforge-lifetime-'));
  path = join(dir, 'm.gguf');
  await synthesize({ arch: 'llama', preset: 'tiny', type: 'Q4_0', seed: 11, out: path });
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const GREEDY = { maxTokens: 12, temperature: 0, topK: 0, topP: 1, minP: 0, seed: 1, repeatPenalty: 1, repeatLastN: 0 };

async function greedy(ctx: NativeContext, prompt: Int32Array): Promise<number[]> {
  ctx.clearMemory();
  return (await ctx.generate(prompt, GREEDY)).tokens;
}

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
}

describe('model lifetime', () => {
  it('refuses to free a model while contexts live, and the contexts keep its weights', async () => {
    // No repack: the weights stay in the file mapping a premature free would unmap.
    const model = await loadAddon().loadModel([path], { mmap: true, repack: false });
    const a = model.createContext({ nCtx: 128, nThreads: 2 });
    const b = model.createContext({ nCtx: 128, nThreads: 2 });
    const prompt = model.tokenize('Once upon a time', true, false);
    const before = await greedy(a, prompt);
    expect(before.length).toBeGreaterThan(0);

    expect(() => model.free()).toThrow(/2 live contexts/);
    expect(codeOf(() => model.free())).toBe('BUSY');
    // Refused means untouched: both contexts still decode the same tokens from the same weights.
    expect(await greedy(a, prompt)).toEqual(before);
    expect(await greedy(b, prompt)).toEqual(before);

    b.free();
    expect(() => model.free()).toThrow(/1 live context;/);
    expect(await greedy(a, prompt)).toEqual(before);

    a.free();
    model.free();
    expect(codeOf(() => model.info())).toBe('FREED');
    expect(codeOf(() => model.createContext({ nCtx: 128 }))).toBe('FREED');
    // Freeing twice is harmless.
    model.free();
  });

  it('a context freed while its model is still held leaves the model usable', async () => {
    const model = await loadAddon().loadModel([path], { mmap: true, repack: false });
    try {
      const ctx = model.createContext({ nCtx: 128, nThreads: 2 });
      const prompt = model.tokenize('The weights', true, false);
      const first = await greedy(ctx, prompt);
      ctx.free();
      expect(codeOf(() => ctx.info())).toBe('FREED');
      const again = model.createContext({ nCtx: 128, nThreads: 2 });
      expect(await greedy(again, prompt)).toEqual(first);
      again.free();
    } finally {
      model.free();
    }
  });
});
