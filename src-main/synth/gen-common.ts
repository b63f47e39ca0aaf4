// Shared pieces of the weight generators: the init spec, a reusable scratch of random words,
// and the per-block scale jitter (real quantized blocks do not all share one scale).
import { f16BitsToF32, f32ToF16Bits } from './half.js';

/** What a tensor's dequantized values should look like. */
export type Init =
  /** mean (default 0) is for F32 tensors only: the quantized generators draw around 0. */
  | { readonly kind: 'normal'; readonly std: number; readonly mean?: number }
  | { readonly kind: 'const'; readonly value: number }
  /** Normal, row r (rowLength consecutive values) scaled by rowScale[r]: a skewed router. */
  | { readonly kind: 'rows'; readonly std: number; readonly rowLength: number; readonly rowScale: readonly number[] };

/** Writes whole blocks: `out.length` is a multiple of the type's block bytes, `out.byteOffset` % 4 === 0. */
export interface BlockFiller {
  readonly typeSize: number;
  fill(out: Uint8Array): void;
}

let scratch = new Uint32Array(0);

/** A scratch array of at least n words, shared (generation is single-threaded and not reentrant). */
export function randomScratch(n: number): Uint32Array {
  if (scratch.length < n) scratch = new Uint32Array(Math.max(n, scratch.length * 2));
  return scratch;
}

/** Block scale multipliers, evenly spread over [0.75, 1.25]. */
export const JITTER = Array.from({ length: 16 }, (_, k) => 0.75 + (0.5 * (k + 0.5)) / 16);

/**
 * Sixteen f16 block scales d_k = d0 * JITTER[k] with d0 chosen so that, with quantized values of
 * variance `qVar`, the dequantized values have standard deviation `std` (computed on the rounded
 * f16 scales, so the target holds exactly in expectation).
 */
export function jitteredScales(std: number, qVar: number): Uint16Array {
  const meanF2 = JITTER.reduce((s, f) => s + f * f, 0) / JITTER.length;
  let d0 = std / Math.sqrt(qVar * meanF2);
  for (let iter = 0; iter < 3; iter++) {
    const bits = JITTER.map((f) => f32ToF16Bits(d0 * f));
    const meanD2 = bits.reduce((s, b) => s + f16BitsToF32(b) ** 2, 0) / bits.length;
    d0 *= std / Math.sqrt(qVar * meanD2);
  }
  return Uint16Array.from(JITTER, (f) => f32ToF16Bits(d0 * f));
}

/** Bits 3, 7, 11, 15 (after shifting right by `shift`) packed into 0..15: the spare top bits of masked nibbles. */
export function spareBits4(w: number, shift: number): number {
  const x = w >>> shift;
  return ((x >>> 3) & 1) | ((x >>> 6) & 2) | ((x >>> 9) & 4) | ((x >>> 12) & 8);
}
