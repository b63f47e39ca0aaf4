// Q4_0 blocks (ggml-common.h block_q4_0: f16 d, 16 bytes of nibbles; y = (q - 8) * d), drawn
// directly: q = 8 + a - b with a, b uniform in 0..7 (triangular, zero mean, variance 10.5),
// eight nibbles at a time without borrows: ((a | 0x8888_8888) - b).
import { type BlockFiller, type Init, jitteredScales, randomScratch, spareBits4 } from './gen-common.js';
import type { Xoshiro128 } from './prng.js';

export const Q4_0_BLOCK_BYTES = 18;
/** Variance of 8 + a - b around 8, a and b uniform in 0..7. */
export const TRI3_VAR = (2 * (8 * 8 - 1)) / 12;

export function q4_0Filler(init: Init, rng: Xoshiro128): BlockFiller {
  if (init.kind !== 'normal') throw new RangeError('Q4_0 tensors are generated from a normal init only');
  const scales = jitteredScales(init.std, TRI3_VAR);
  return {
    typeSize: Q4_0_BLOCK_BYTES,
    fill(out) {
      const nb = out.length / Q4_0_BLOCK_BYTES;
      const u16 = new Uint16Array(out.buffer, out.byteOffset, nb * 9);
      const r = randomScratch(nb * 8);
      rng.fill(r, 0, nb * 8);
      for (let b = 0, o = 0, k = 0; b < nb; b++, o += 9, k += 8) {
        u16[o] = scales[spareBits4(r[k] as number, 0)] as number;
        for (let j = 0; j < 4; j++) {
          const w = (((r[k + 2 * j] as number) & 0x77777777) | 0x88888888) - ((r[k + 2 * j + 1] as number) & 0x77777777);
          u16[o + 1 + 2 * j] = w & 0xffff;
          u16[o + 2 + 2 * j] = w >>> 16;
        }
      }
    },
  };
}
