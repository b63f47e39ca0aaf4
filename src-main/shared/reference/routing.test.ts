// The router skew in a real forward pass: a synthetic mixture of experts routes its tokens
// unevenly when its routers are skewed, and evenly (about) when they are not. The reference
// forward pass records which experts each position picks in each layer, and a per-layer LRU
// cache replays them, as the routing model's simulation does with random hidden states.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseGgufHeader } from '../gguf/reader.js';
import { synthesize } from '../../synth/synthesize.js';
import { vocabDir } from '../../node/paths.js';
import { CALIBRATION_TOKENS, seededUniform, simulateLru } from '../moe/routing-model.js';
import { llamaRefModelFromGguf } from './from-gguf.test-util.js';
import { llamaForward } from './llama.test-util.js';

const haveVocabs = existsSync(vocabDir());
if (!haveVocabs) {
  if (process.env.CI === 'true') throw new Error(`vocab files missing at ${vocabDir()}`);
  console.warn(`skipping routing tests: no llama.cpp source at ${vocabDir()}`);
}

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-routing-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const N_EXPERT = 64;
const N_USED = 4;
const LAYERS = 4;

/** Hit rate of a per-layer LRU cache of `size` experts replaying the recorded routing from cold. */
function lruReplay(routes: number[][][], size: number): number {
  let hits = 0;
  let lookups = 0;
  for (const layer of routes) {
    const cache = new Map<number, true>();
    for (const chosen of layer) {
      for (const e of chosen) {
        lookups++;
        if (cache.delete(e)) hits++;
        cache.set(e, true);
        if (cache.size > size) cache.delete(cache.keys().next().value as number);
      }
    }
  }
  return hits / lookups;
}

async function measure(skew: number): Promise<{ half: number; all: number }> {
  const r = await synthesize({
    arch: 'llama',
    preset: 'tiny',
    type: 'F16',
    seed: 5,
    out: join(dir, `skew-${skew}.gguf`),
    overrides: { nLayer: LAYERS, nFf: 256, nExpert: N_EXPERT, nExpertUsed: N_USED, routerSkew: skew },
  });
  const bytes = await readFile(r.path);
  const model = llamaRefModelFromGguf(parseGgufHeader(bytes, bytes.length), bytes);
  // Random token ids: no text, so no repetition the routing could follow.
  const u = seededUniform(9);
  const tokens = Array.from({ length: CALIBRATION_TOKENS }, () => 1 + Math.floor(u() * (r.nVocab - 1)));
  const routes: number[][][] = Array.from({ length: LAYERS }, () => []);
  llamaForward(model, tokens, { onRoute: (layer, _pos, experts) => routes[layer]?.push([...experts]) });
  expect(routes.every((l) => l.length === CALIBRATION_TOKENS)).toBe(true);
  return { half: lruReplay(routes, N_EXPERT / 2), all: lruReplay(routes, N_EXPERT) };
}

describe('router skew in a real forward pass', () => {
  it.skipIf(!haveVocabs)('skewed routers concentrate the routing; the LRU hit rates are of the simulated order', async () => {
    const skewed = await measure(0.35);
    const uniform = await measure(0);
    const [simHalf, simAll] = simulateLru({ nExpert: N_EXPERT, nUsed: N_USED, skew: 0.35, layers: LAYERS, tokens: CALIBRATION_TOKENS, cacheSizes: [N_EXPERT / 2, N_EXPERT], seed: 1 });
    // Printed: the measured figures beside the simulation's, for docs/moe.md's claim.
    console.log(`routing of ${CALIBRATION_TOKENS} tokens, ${N_USED} of ${N_EXPERT} experts, ${LAYERS} layers: skew 0.35 LRU ${N_EXPERT / 2}/${N_EXPERT} hit ${skewed.half.toFixed(3)}/${skewed.all.toFixed(3)} (simulated ${simHalf!.toFixed(3)}/${simAll!.toFixed(3)}), skew 0 ${uniform.half.toFixed(3)}/${uniform.all.toFixed(3)}`);
    expect(skewed.half).toBeGreaterThan(uniform.half + 0.05);
    expect(Math.abs(skewed.half - simHalf!)).toBeLessThan(0.15);
  });
});
