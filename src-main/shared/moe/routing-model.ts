// The synthetic routing model (pure): how `ramforge synth` skews its routers, and what that
// skew predicts for an expert cache. Trained routers are not uniform: some experts of a layer
// are chosen far more often than others. A synthetic router reproduces that by giving the
// router row of the expert of popularity rank r (0 = most popular) a weight scale
// (1 + r)^-skew: against hidden states in random directions the rows with larger norms win the
// top-k more often. Which expert holds which rank is a per-layer permutation, so no expert index
// is popular in every layer.
//
// What the model assumes: router logits of independent random-ish hidden states, i.e. the
// logit of expert j for a token is scale_j × z_j with z_j independent standard normals (the
// limit of random router rows against hidden states in random directions). It has none of the
// token-to-token locality of a real model and predicts no real model's hit rates.

/** Tokens of the calibration run: a short generation from a cold cache. */
export const CALIBRATION_TOKENS = 64;

/**
 * The default skew. Calibrated by `simulateLru` on a Qwen3-30B-A3B shape (128 experts, 8 used,
 * 48 layers, CALIBRATION_TOKENS tokens from a cold cache): per-layer LRU caches of 64 and 128
 * experts hit 66.6 % and 78.5 %, the order of the 67 % and 81 % measured upstream on the real
 * model (a 128-expert cache holds every expert, so its misses are first uses only).
 */
export const DEFAULT_ROUTER_SKEW = 0.35;

/** Largest skew accepted: beyond it one expert takes nearly every token. */
export const MAX_ROUTER_SKEW = 4;

/** Weight scale of the router row of the expert of popularity rank `rank` (0-based). */
export function routerRowScale(rank: number, skew: number): number {
  return Math.pow(1 + rank, -skew);
}

/** A small seeded generator (splitmix32): the same seed gives the same stream everywhere. */
export function seededUniform(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return ((z ^ (z >>> 16)) >>> 0) / 4294967296;
  };
}

function normal(u: () => number): number {
  const a = Math.max(u(), 1e-300);
  return Math.sqrt(-2 * Math.log(a)) * Math.cos(2 * Math.PI * u());
}

/**
 * Popularity rank of every expert of one layer (a permutation of 0..nExpert-1), from the
 * model's seed and the layer index.
 */
export function expertRanks(nExpert: number, seed: number, layer: number): number[] {
  const u = seededUniform((Math.imul(seed >>> 0, 0x01000193) ^ Math.imul(layer + 1, 0x9e3779b1)) >>> 0);
  const ranks = Array.from({ length: nExpert }, (_, i) => i);
  for (let i = nExpert - 1; i > 0; i--) {
    const j = Math.floor(u() * (i + 1));
    [ranks[i], ranks[j]] = [ranks[j] as number, ranks[i] as number];
  }
  return ranks;
}

/** The experts (by popularity rank) each of `tokens` tokens routes to in one layer. */
export function routeTokens(nExpert: number, nUsed: number, skew: number, tokens: number, u: () => number): number[][] {
  const scale = Array.from({ length: nExpert }, (_, r) => routerRowScale(r, skew));
  const logits = new Float64Array(nExpert);
  const order = Array.from({ length: nExpert }, (_, i) => i);
  const out: number[][] = [];
  for (let t = 0; t < tokens; t++) {
    for (let j = 0; j < nExpert; j++) logits[j] = (scale[j] as number) * normal(u);
    order.sort((a, b) => (logits[b] as number) - (logits[a] as number));
    out.push(order.slice(0, nUsed));
  }
  return out;
}

export interface LruSimulation {
  readonly nExpert: number;
  readonly nUsed: number;
  readonly skew: number;
  readonly layers: number;
  readonly tokens: number;
  /** Per-layer cache sizes in experts. */
  readonly cacheSizes: readonly number[];
  readonly seed: number;
}

/**
 * Hit rate of a per-layer LRU expert cache of each size, every layer starting cold: hits over
 * all lookups (tokens × experts used × layers).
 */
export function simulateLru(s: LruSimulation): number[] {
  const u = seededUniform(s.seed);
  const hits = s.cacheSizes.map(() => 0);
  let lookups = 0;
  for (let l = 0; l < s.layers; l++) {
    // A Map iterates in insertion order: delete + set moves an expert to the most recent end.
    const caches = s.cacheSizes.map(() => new Map<number, true>());
    for (const chosen of routeTokens(s.nExpert, s.nUsed, s.skew, s.tokens, u)) {
      for (const e of chosen) {
        lookups++;
        caches.forEach((c, i) => {
          if (c.delete(e)) hits[i] = (hits[i] as number) + 1;
          c.set(e, true);
          if (c.size > (s.cacheSizes[i] as number)) c.delete(c.keys().next().value as number);
        });
      }
    }
  }
  return hits.map((h) => (lookups > 0 ? h / lookups : 0));
}

/**
 * Probability that the expert of each popularity rank is among a token's experts (the values
 * sum to nUsed), estimated from `tokens` routed tokens of a fixed seed. Skew 0 is uniform:
 * nUsed / nExpert each, exactly.
 */
export function expertPopularity(nExpert: number, nUsed: number, skew: number, tokens = 4096, seed = 1): number[] {
  if (skew === 0) return Array.from({ length: nExpert }, () => nUsed / nExpert);
  const counts = new Array<number>(nExpert).fill(0);
  for (const chosen of routeTokens(nExpert, nUsed, skew, tokens, seededUniform(seed))) for (const e of chosen) counts[e] = (counts[e] as number) + 1;
  return counts.map((c) => c / tokens);
}

/**
 * Steady-state hit rate of an LRU cache of `size` experts when each token asks for expert j
 * with probability p_j, independently (Che's approximation): the characteristic time T solves
 * Σ_j (1 − e^(−p_j T)) = size, and hit = Σ_j p_j (1 − e^(−p_j T)) / Σ_j p_j.
 */
export function lruHitRate(popularity: readonly number[], size: number): number {
  const n = popularity.length;
  const total = popularity.reduce((a, b) => a + b, 0);
  if (size <= 0 || total <= 0) return 0;
  if (size >= n) return 1;
  const occupied = (t: number) => popularity.reduce((s, p) => s + (1 - Math.exp(-p * t)), 0);
  let lo = 0;
  let hi = 1;
  while (occupied(hi) < size) hi *= 2;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (occupied(mid) < size) lo = mid;
    else hi = mid;
  }
  const t = (lo + hi) / 2;
  return popularity.reduce((s, p) => s + p * (1 - Math.exp(-p * t)), 0) / total;
}

/**
 * The best any cache of `size` experts can do against independent routing: hold the most
 * popular ones (the share of lookups they take).
 */
export function bestHitRate(popularity: readonly number[], size: number): number {
  const total = popularity.reduce((a, b) => a + b, 0);
  if (total <= 0) return 0;
  const top = [...popularity].sort((a, b) => b - a).slice(0, Math.max(0, size));
  return top.reduce((a, b) => a + b, 0) / total;
}
