// Q4_K super-blocks (block_q4_K: f16 d, f16 dmin, 12 bytes of packed 6-bit scales and mins,
// 128 bytes of nibbles; y = d * sc_j * q - dmin * m_j for sub-block j). Zero mean by
// construction: m_j = sc_j and dmin = 8 d (exact in f16), so y = d * sc_j * (q - 8), with
// q = 8 + a - b as in Q4_0. Sub-block scales come from 256 patterns drawn per tensor.
import { type BlockFiller, type Init, jitteredScales, randomScratch, spareBits4 } from './gen-common.js';
import { f16BitsToF32, f32ToF16Bits } from './half.js';
import { TRI3_VAR } from './gen-q4_0.js';
import type { Xoshiro128 } from './prng.js';

export const Q4_K_BLOCK_BYTES = 144;
const N_PATTERNS = 256;
const SC_MIN = 20;
const SC_SPAN = 24; // sub-block scales 20..43, well inside 6 bits

/** Packs 8 (scale, min) pairs into the 12-byte layout get_scale_min_k4 reads. */
export function packScalesK4(sc: readonly number[], m: readonly number[]): Uint8Array {
  const q = new Uint8Array(12);
  for (let k = 0; k < 4; k++) {
    const sHi = sc[k + 4] as number;
    const mHi = m[k + 4] as number;
    q[k] = ((sc[k] as number) & 63) | ((sHi >> 4) << 6);
    q[k + 4] = ((m[k] as number) & 63) | ((mHi >> 4) << 6);
    q[k + 8] = (sHi & 15) | ((mHi & 15) << 4);
  }
  return q;
}

export function q4_kFiller(init: Init, rng: Xoshiro128): BlockFiller {
  if (init.kind !== 'normal') throw new RangeError('Q4_K tensors are generated from a normal init only');
  const patterns = new Uint32Array(N_PATTERNS * 3);
  let sumS2 = 0;
  for (let p = 0; p < N_PATTERNS; p++) {
    const sc = Array.from({ length: 8 }, () => SC_MIN + (rng.nextU32() % SC_SPAN));
    for (const s of sc) sumS2 += s * s;
    const bytes = packScalesK4(sc, sc);
    patterns.set(new Uint32Array(bytes.buffer), p * 3);
  }
  const meanS2 = sumS2 / (N_PATTERNS * 8);
  const d = jitteredScales(init.std, TRI3_VAR * meanS2);
  const dd = Uint32Array.from(d, (bits) => bits | (f32ToF16Bits(8 * f16BitsToF32(bits)) << 16));
  return {
    typeSize: Q4_K_BLOCK_BYTES,
    fill(out) {
      const nb = out.length / Q4_K_BLOCK_BYTES;
      const u32 = new Uint32Array(out.buffer, out.byteOffset, nb * 36);
      const r = randomScratch(nb * 64);
      rng.fill(r, 0, nb * 64);
      for (let b = 0, o = 0, k = 0; b < nb; b++, o += 36, k += 64) {
        const w0 = r[k] as number;
        const p = 3 * (spareBits4(w0, 16) | (spareBits4(r[k + 1] as number, 0) << 4));
        u32[o] = dd[spareBits4(w0, 0)] as number;
        u32[o + 1] = patterns[p] as number;
        u32[o + 2] = patterns[p + 1] as number;
        u32[o + 3] = patterns[p + 2] as number;
        for (let j = 0; j < 32; j++) {
          u32[o + 4 + j] = (((r[k + 2 * j] as number) & 0x77777777) | 0x88888888) - ((r[k + 2 * j + 1] as number) & 0x77777777);
        }
      }
    },
  };
}
