// F32 and F16 tensors: normal values from a 65 536-entry quantile table (two per random word),
// or a constant (norm weights).
import { type BlockFiller, type Init, randomScratch } from './gen-common.js';
import { unitNormalTable } from './gauss.js';
import { f32ToF16Bits } from './half.js';
import type { Xoshiro128 } from './prng.js';

export function f32Filler(init: Init, rng: Xoshiro128): BlockFiller {
  if (init.kind === 'const') {
    return { typeSize: 4, fill: (out) => new Float32Array(out.buffer, out.byteOffset, out.length / 4).fill(init.value) };
  }
  if (init.kind === 'rows') return rowScaledF32Filler(init, rng);
  const table = Float32Array.from(unitNormalTable(), (x) => x * init.std + (init.mean ?? 0));
  return {
    typeSize: 4,
    fill(out) {
      const n = out.length / 4;
      const f = new Float32Array(out.buffer, out.byteOffset, n);
      const words = (n + 1) >>> 1;
      const r = randomScratch(words);
      rng.fill(r, 0, words);
      for (let i = 0, j = 0; i < n; i += 2, j++) {
        const w = r[j] as number;
        f[i] = table[w & 0xffff] as number;
        if (i + 1 < n) f[i + 1] = table[w >>> 16] as number;
      }
    },
  };
}

/** Consecutive fill calls continue the tensor, so the row of each value is counted across them. */
function rowScaledF32Filler(init: Extract<Init, { kind: 'rows' }>, rng: Xoshiro128): BlockFiller {
  const table = Float32Array.from(unitNormalTable(), (x) => x * init.std);
  let at = 0;
  const scaleAt = (i: number): number => init.rowScale[Math.floor(i / init.rowLength)] ?? 1;
  return {
    typeSize: 4,
    fill(out) {
      const n = out.length / 4;
      const f = new Float32Array(out.buffer, out.byteOffset, n);
      const words = (n + 1) >>> 1;
      const r = randomScratch(words);
      rng.fill(r, 0, words);
      for (let i = 0, j = 0; i < n; i += 2, j++) {
        const w = r[j] as number;
        f[i] = (table[w & 0xffff] as number) * scaleAt(at + i);
        if (i + 1 < n) f[i + 1] = (table[w >>> 16] as number) * scaleAt(at + i + 1);
      }
      at += n;
    },
  };
}

export function f16Filler(init: Init, rng: Xoshiro128): BlockFiller {
  if (init.kind === 'rows') throw new RangeError('row-scaled tensors (routers) are generated as F32 only');
  if (init.kind === 'const') {
    const bits = f32ToF16Bits(init.value);
    return { typeSize: 2, fill: (out) => new Uint16Array(out.buffer, out.byteOffset, out.length / 2).fill(bits) };
  }
  const table = Uint16Array.from(unitNormalTable(), (x) => f32ToF16Bits(x * init.std));
  return {
    typeSize: 2,
    fill(out) {
      const n = out.length / 2;
      const h = new Uint16Array(out.buffer, out.byteOffset, n);
      const words = (n + 1) >>> 1;
      const r = randomScratch(words);
      rng.fill(r, 0, words);
      for (let i = 0, j = 0; i < n; i += 2, j++) {
        const w = r[j] as number;
        h[i] = table[w & 0xffff] as number;
        if (i + 1 < n) h[i + 1] = table[w >>> 16] as number;
      }
    },
  };
}
