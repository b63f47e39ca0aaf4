// Q8_0 blocks (block_q8_0: f16 d, 32 int8; y = q * d), drawn directly: q = a - b with a, b
// uniform in 0..127 (triangular, zero mean), four bytes at a time without borrows.
import { type BlockFiller, type Init, jitteredScales, randomScratch } from './gen-common.js';
import type { Xoshiro128 } from './prng.js';

export const Q8_0_BLOCK_BYTES = 34;
/** Variance of a - b, a and b uniform in 0..127. */
export const TRI7_VAR = (2 * (128 * 128 - 1)) / 12;

export function q8_0Filler(init: Init, rng: Xoshiro128): BlockFiller {
  if (init.kind !== 'normal') throw new RangeError('Q8_0 tensors are generated from a normal init only');
  const scales = jitteredScales(init.std, TRI7_VAR);
  return {
    typeSize: Q8_0_BLOCK_BYTES,
    fill(out) {
      const nb = out.length / Q8_0_BLOCK_BYTES;
      const u16 = new Uint16Array(out.buffer, out.byteOffset, nb * 17);
      const r = randomScratch(nb * 16);
      rng.fill(r, 0, nb * 16);
      for (let b = 0, o = 0, k = 0; b < nb; b++, o += 17, k += 16) {
        const w0 = r[k] as number;
        // bits 7, 15, 23, 31 are left over by the 0x7f mask
        u16[o] = scales[((w0 >>> 7) & 1) | ((w0 >>> 14) & 2) | ((w0 >>> 21) & 4) | ((w0 >>> 28) & 8)] as number;
        for (let j = 0; j < 8; j++) {
          const w = ((((r[k + 2 * j] as number) & 0x7f7f7f7f) | 0x80808080) - ((r[k + 2 * j + 1] as number) & 0x7f7f7f7f)) ^ 0x80808080;
          u16[o + 1 + 2 * j] = w & 0xffff;
          u16[o + 2 + 2 * j] = w >>> 16;
        }
      }
    },
  };
}
