// Seeded randomness: the same seed gives the same cases, so a fuzz failure or a cap-sweep case
// is reproduced by its seed.

/** A random number in [0, 1). */
export type Rand = () => number;

/** mulberry32: small, seeded, good enough to pick cases reproducibly. */
export function mulberry32(seed: number): Rand {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
