// The reference forward pass against llama.cpp (through our native addon) on tiny synthetic F32/F16
// llama models (dense and with experts): same top-1 token and cosine similarity >= 0.9999 of
// the final-token logits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAddon } from '../../native/addon.js';
import { parseGgufHeader } from '../gguf/reader.js';
import { synthesize } from '../../synth/synthesize.js';
import { llamaRefModelFromGguf } from './from-gguf.test-util.js';
import { llamaForward } from './llama.test-util.js';
import { argmax, cosineSimilarity } from './ops.test-util.js';

// "<s> The quick brown fox jumps over the lazy dog" in llama-spm ids, plus a few more.
const TOKENS = [1, 450, 4996, 17354, 1701, 29916, 432, 17204, 975, 278, 17366, 11203, 29889, 13, 3112];

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-ref-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function compare(name: string, overrides: Parameters<typeof synthesize>[0]['overrides'], seed: number, type = 'F32') {
  const r = await synthesize({ arch: 'llama', preset: 'tiny', type, seed, out: join(dir, `${name}.gguf`), overrides });
  const bytes = await readFile(r.path);
  const ref = llamaForward(llamaRefModelFromGguf(parseGgufHeader(bytes, bytes.length), bytes), TOKENS);

  const addon = loadAddon();
  const model = await addon.loadModel([r.path], { mmap: true });
  try {
    const ctx = model.createContext({ nCtx: 256, nThreads: 2, nBatch: 256 });
    try {
      const native = ctx.evalLogits(TOKENS);
      expect(native.length).toBe(ref.length);
      const cos = cosineSimilarity(ref, native);
      // Printed so a drifting margin is visible before it fails.
      console.log(`${name}: cosine ${cos.toFixed(7)}, top-1 ref ${argmax(ref)} native ${argmax(native)}`);
      expect(argmax(native)).toBe(argmax(ref));
      expect(cos).toBeGreaterThanOrEqual(0.9999);
    } finally {
      ctx.free();
    }
  } finally {
    model.free();
  }
}

describe('reference forward vs llama.cpp', () => {
  it('agrees on a tiny F32 llama with a separate output head', async () => {
    await compare('untied', { tieEmbeddings: false }, 7);
  });

  it('agrees on a tiny F32 llama with the head tied to token_embd', async () => {
    await compare('tied', { tieEmbeddings: true, nLayer: 3 }, 11);
  });

  it('agrees on a tiny F16 llama', async () => {
    await compare('f16', { nLayer: 2 }, 13, 'F16');
  });

  it('agrees on a tiny F32 llama with experts (the Mixtral layout: softmax gating, top 2 of 8)', async () => {
    await compare('moe', { nExpert: 8, nExpertUsed: 2 }, 17);
  });
});
