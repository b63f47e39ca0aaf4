import { describe, expect, it } from 'vitest';
import { CALIBRATION_TOKENS, DEFAULT_ROUTER_SKEW, bestHitRate, expertPopularity, expertRanks, lruHitRate, routeTokens, routerRowScale, seededUniform, simulateLru } from './routing-model.js';

// The Qwen3-30B-A3B routing shape the default skew is calibrated on.
const QWEN3_30B = { nExpert: 128, nUsed: 8, layers: 48 };

describe('synthetic routing model', () => {
  it('the default skew: per-layer LRU caches of 64 and 128 of 128 experts hit about 67 % and 81 % (the order measured upstream)', () => {
    const [h64, h128] = simulateLru({ ...QWEN3_30B, skew: DEFAULT_ROUTER_SKEW, tokens: CALIBRATION_TOKENS, cacheSizes: [64, 128], seed: 1 });
    expect(h64).toBeGreaterThan(0.6);
    expect(h64).toBeLessThan(0.74);
    expect(h128).toBeGreaterThan(0.74);
    expect(h128).toBeLessThan(0.88);
    // Uniform routing would hit far less at 64 experts: the skew is what brings it to the measured order.
    const [u64] = simulateLru({ ...QWEN3_30B, skew: 0, tokens: CALIBRATION_TOKENS, cacheSizes: [64], seed: 1 });
    expect(u64).toBeLessThan(0.5);
  });

  it('the skew orders popularity by rank; skew 0 is exactly uniform', () => {
    const p = expertPopularity(128, 8, DEFAULT_ROUTER_SKEW);
    expect(p.reduce((a, b) => a + b, 0)).toBeCloseTo(8, 9);
    expect(p[0]!).toBeGreaterThan(5 * p[127]!);
    expect(expertPopularity(16, 2, 0)).toEqual(new Array(16).fill(2 / 16));
    expect(routerRowScale(0, 0.35)).toBe(1);
    expect(routerRowScale(3, 0.5)).toBeCloseTo(0.5, 12);
  });

  it("Che's approximation matches a long LRU simulation in steady state", () => {
    const p = expertPopularity(128, 8, DEFAULT_ROUTER_SKEW);
    const sizes = [32, 64, 96];
    // Warm each cache over 4000 tokens: the cold start is then a small share of the lookups.
    const sim = simulateLru({ nExpert: 128, nUsed: 8, layers: 2, skew: DEFAULT_ROUTER_SKEW, tokens: 4000, cacheSizes: sizes, seed: 2 });
    sizes.forEach((c, i) => expect(Math.abs(lruHitRate(p, c) - (sim[i] as number)), `cache ${c}`).toBeLessThan(0.04));
    expect(lruHitRate(p, 0)).toBe(0);
    expect(lruHitRate(p, 128)).toBe(1);
    // Uniform routing: an LRU cache of C of n experts hits C / n.
    expect(lruHitRate(new Array(64).fill(4 / 64), 16)).toBeCloseTo(16 / 64, 6);
  });

  it('no cache beats holding the most popular experts', () => {
    const p = expertPopularity(128, 8, DEFAULT_ROUTER_SKEW);
    for (const c of [8, 32, 64, 100]) expect(bestHitRate(p, c)).toBeGreaterThanOrEqual(lruHitRate(p, c));
    expect(bestHitRate(p, 128)).toBeCloseTo(1, 12);
  });

  it('routes each token to nUsed distinct experts; ranks are a per-layer permutation', () => {
    for (const chosen of routeTokens(32, 4, 0.5, 50, seededUniform(3))) {
      expect(new Set(chosen).size).toBe(4);
      for (const e of chosen) expect(e >= 0 && e < 32).toBe(true);
    }
    const r = expertRanks(64, 1, 5);
    expect([...r].sort((a, b) => a - b)).toEqual(Array.from({ length: 64 }, (_, i) => i));
    expect(expertRanks(64, 1, 5)).toEqual(r);
    expect(expertRanks(64, 2, 5)).not.toEqual(r);
  });
});
