// MXFP4 blocks (block_mxfp4: an E8M0 exponent byte e, 16 bytes of 4-bit codes; y =
// kvalues_mxfp4[code] · 2^(e-128), kvalues = 2 × the E2M1 values {0, ±1, ±2, ±3, ±4, ±6, ±8,
// ±12}), gpt-oss's native expert type. Codes are uniform random nibbles; the scale is a power of
// two, so each block picks the exponent below or above the target, in the proportion that makes
// the values' variance the target's in expectation.
import type { BlockFiller, Init } from './gen-common.js';
import { randomScratch } from './gen-common.js';
import type { Xoshiro128 } from './prng.js';

export const MXFP4_BLOCK_BYTES = 17;
/** Mean square of kvalues_mxfp4 over the 16 codes. */
export const MXFP4_CODE_VAR = (2 * (0 + 1 + 4 + 9 + 16 + 36 + 64 + 144)) / 16;

/** The two exponents around `std` and the probability (of 2^32) of the lower one. */
export function mxfp4Exponents(std: number): { lo: number; hi: number; pLo: number } {
  const target = std / Math.sqrt(MXFP4_CODE_VAR);
  const a = Math.floor(Math.log2(target));
  const lo = Math.min(254, Math.max(1, a + 128));
  const hi = Math.min(254, lo + 1);
  const dLo = 2 ** (lo - 128);
  const dHi = 2 ** (hi - 128);
  const p = hi === lo ? 1 : Math.min(1, Math.max(0, (dHi * dHi - target * target) / (dHi * dHi - dLo * dLo)));
  return { lo, hi, pLo: Math.floor(p * 0xffffffff) };
}

export function mxfp4Filler(init: Init, rng: Xoshiro128): BlockFiller {
  if (init.kind !== 'normal') throw new RangeError('MXFP4 tensors are generated from a normal init only');
  const { lo, hi, pLo } = mxfp4Exponents(init.std);
  return {
    typeSize: MXFP4_BLOCK_BYTES,
    fill(out) {
      const nb = out.length / MXFP4_BLOCK_BYTES;
      // One word for the exponent, four for the 16 code bytes.
      const r = randomScratch(nb * 5);
      rng.fill(r, 0, nb * 5);
      for (let b = 0, o = 0, k = 0; b < nb; b++, o += MXFP4_BLOCK_BYTES, k += 5) {
        out[o] = (r[k] as number) <= pLo ? lo : hi;
        for (let j = 0; j < 4; j++) {
          const w = r[k + 1 + j] as number;
          const at = o + 1 + 4 * j;
          out[at] = w & 0xff;
          out[at + 1] = (w >>> 8) & 0xff;
          out[at + 2] = (w >>> 16) & 0xff;
          out[at + 3] = w >>> 24;
        }
      }
    },
  };
}
