import { describe, expect, it } from 'vitest';
import { makeFiller } from './generate.js';
import { ggmlTypeByName } from '../shared/gguf/ggml-types.js';
const GGML_F16 = ggmlTypeByName('F16')!.id;
const GGML_F32 = ggmlTypeByName('F32')!.id;
const GGML_Q4_0 = ggmlTypeByName('Q4_0')!.id;
const GGML_Q4_K = ggmlTypeByName('Q4_K')!.id;
const GGML_Q8_0 = ggmlTypeByName('Q8_0')!.id;
import { f16BitsToF32, f32ToF16Bits } from './half.js';
import { Xoshiro128 } from './prng.js';
import { packScalesK4 } from './gen-q4_k.js';

// Tiny dequantizers written from ggml-quants.c's dequantize_row_* (independent of the generators).
function f16(view: DataView, at: number): number {
  return f16BitsToF32(view.getUint16(at, true));
}

function dequantQ4_0(b: Uint8Array): number[] {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const y: number[] = [];
  for (let o = 0; o < b.length; o += 18) {
    const d = f16(v, o);
    const lo: number[] = [];
    const hi: number[] = [];
    for (let j = 0; j < 16; j++) {
      const q = b[o + 2 + j] as number;
      lo.push(((q & 0x0f) - 8) * d);
      hi.push(((q >> 4) - 8) * d);
    }
    y.push(...lo, ...hi);
  }
  return y;
}

// dequantize_row_mxfp4: kvalues_mxfp4[code] · 2^(e-128), low nibbles first, then high.
const KVALUES_MXFP4 = [0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12];
function dequantMXFP4(b: Uint8Array): number[] {
  const y: number[] = [];
  for (let o = 0; o < b.length; o += 17) {
    const d = 2 ** ((b[o] as number) - 128);
    const lo: number[] = [];
    const hi: number[] = [];
    for (let j = 0; j < 16; j++) {
      lo.push((KVALUES_MXFP4[(b[o + 1 + j] as number) & 15] as number) * d);
      hi.push((KVALUES_MXFP4[(b[o + 1 + j] as number) >> 4] as number) * d);
    }
    y.push(...lo, ...hi);
  }
  return y;
}

function dequantQ8_0(b: Uint8Array): number[] {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const y: number[] = [];
  for (let o = 0; o < b.length; o += 34) {
    const d = f16(v, o);
    for (let j = 0; j < 32; j++) y.push(v.getInt8(o + 2 + j) * d);
  }
  return y;
}

function scaleMinK4(j: number, q: Uint8Array): [number, number] {
  if (j < 4) return [(q[j] as number) & 63, (q[j + 4] as number) & 63];
  return [((q[j + 4] as number) & 0xf) | (((q[j - 4] as number) >> 6) << 4), ((q[j + 4] as number) >> 4) | (((q[j] as number) >> 6) << 4)];
}

function dequantQ4_K(b: Uint8Array): number[] {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const y: number[] = [];
  for (let o = 0; o < b.length; o += 144) {
    const d = f16(v, o);
    const dmin = f16(v, o + 2);
    const scales = b.subarray(o + 4, o + 16);
    let q = o + 16;
    for (let j = 0, is = 0; j < 256; j += 64, is += 2, q += 32) {
      const [sc1, m1] = scaleMinK4(is, scales);
      const [sc2, m2] = scaleMinK4(is + 1, scales);
      for (let l = 0; l < 32; l++) y.push(d * sc1 * ((b[q + l] as number) & 0xf) - dmin * m1);
      for (let l = 0; l < 32; l++) y.push(d * sc2 * ((b[q + l] as number) >> 4) - dmin * m2);
    }
  }
  return y;
}

function stats(x: ArrayLike<number>): { mean: number; std: number } {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i] as number;
  const mean = s / x.length;
  let v = 0;
  for (let i = 0; i < x.length; i++) v += ((x[i] as number) - mean) ** 2;
  return { mean, std: Math.sqrt(v / x.length) };
}

function generate(typeId: number, typeSize: number, blocks: number, std: number, seed = 3): Uint8Array {
  const f = makeFiller(typeId, { kind: 'normal', std }, new Xoshiro128(seed, 1));
  expect(f.typeSize).toBe(typeSize);
  const out = new Uint8Array(blocks * typeSize);
  f.fill(out);
  return out;
}

describe('weight generators decode to the intended distribution', () => {
  const std = 0.02;
  const cases: [string, number, number, (b: Uint8Array) => ArrayLike<number>][] = [
    ['F32', GGML_F32, 4, (b) => new Float32Array(b.buffer, b.byteOffset, b.length / 4)],
    ['F16', GGML_F16, 2, (b) => Array.from(new Uint16Array(b.buffer, b.byteOffset, b.length / 2), f16BitsToF32)],
    ['Q8_0', GGML_Q8_0, 34, dequantQ8_0],
    ['Q4_0', GGML_Q4_0, 18, dequantQ4_0],
    ['Q4_K', GGML_Q4_K, 144, dequantQ4_K],
    ['MXFP4', ggmlTypeByName('MXFP4')!.id, 17, dequantMXFP4],
  ];
  for (const [name, id, size, decode] of cases) {
    it(`${name}: mean ~ 0, std ~ ${std}`, () => {
      const blocks = Math.ceil(200_000 / (size === 144 ? 256 : size > 4 ? 32 : 1));
      const x = decode(generate(id, size, blocks, std));
      expect(x.length).toBeGreaterThanOrEqual(200_000);
      const s = stats(x);
      expect(Math.abs(s.mean)).toBeLessThan(std * 0.01);
      expect(s.std).toBeGreaterThan(std * 0.97);
      expect(s.std).toBeLessThan(std * 1.03);
      // not all one value, and symmetric-ish tails: both signs present in quantity
      let neg = 0;
      for (let i = 0; i < x.length; i++) if ((x[i] as number) < 0) neg++;
      expect(neg / x.length).toBeGreaterThan(0.4);
      expect(neg / x.length).toBeLessThan(0.6);
    });
  }

  it('quantized blocks vary their scale from block to block', () => {
    const b = generate(GGML_Q4_0, 18, 64, 0.02);
    const v = new DataView(b.buffer);
    const scales = new Set(Array.from({ length: 64 }, (_, i) => v.getUint16(i * 18, true)));
    expect(scales.size).toBeGreaterThan(4);
  });

  it('constant init fills norms exactly', () => {
    const f = makeFiller(GGML_F32, { kind: 'const', value: 1 }, new Xoshiro128(1));
    const out = new Uint8Array(64);
    f.fill(out);
    expect(Array.from(new Float32Array(out.buffer))).toEqual(new Array(16).fill(1));
    expect(() => makeFiller(GGML_Q4_0, { kind: 'const', value: 1 }, new Xoshiro128(1))).toThrow();
    expect(() => makeFiller(3, { kind: 'normal', std: 1 }, new Xoshiro128(1))).toThrow(/no generator/);
  });

  it('packs Q4_K scales the way get_scale_min_k4 unpacks them', () => {
    const sc = [1, 20, 33, 63, 17, 48, 5, 62];
    const m = [63, 0, 15, 16, 31, 32, 47, 9];
    const q = packScalesK4(sc, m);
    for (let j = 0; j < 8; j++) expect(scaleMinK4(j, q)).toEqual([sc[j], m[j]]);
  });
});

describe('PRNG and half floats', () => {
  it('is deterministic per (seed, stream) and independent of chunking', () => {
    const a = new Uint32Array(1000);
    new Xoshiro128(42, 7).fill(a);
    const b = new Uint32Array(1000);
    const r = new Xoshiro128(42, 7);
    r.fill(b, 0, 333);
    r.fill(b, 333, 1000);
    expect(Array.from(b)).toEqual(Array.from(a));
    const c = new Uint32Array(1000);
    new Xoshiro128(42, 8).fill(c);
    expect(Array.from(c)).not.toEqual(Array.from(a));
    const d = new Uint32Array(1000);
    new Xoshiro128(43, 7).fill(d);
    expect(Array.from(d)).not.toEqual(Array.from(a));
    // roughly uniform bits
    let ones = 0;
    for (const w of a) for (let k = 0; k < 32; k++) ones += (w >>> k) & 1;
    expect(ones / 32000).toBeGreaterThan(0.48);
    expect(ones / 32000).toBeLessThan(0.52);
  });

  it('converts to and from binary16', () => {
    expect(f32ToF16Bits(1)).toBe(0x3c00);
    expect(f32ToF16Bits(-2)).toBe(0xc000);
    expect(f32ToF16Bits(65504)).toBe(0x7bff);
    expect(f32ToF16Bits(1e6)).toBe(0x7c00);
    expect(f32ToF16Bits(2 ** -24)).toBe(0x0001);
    expect(f32ToF16Bits(0.1)).toBe(0x2e66);
    expect(f32ToF16Bits(1 + 2 ** -11)).toBe(0x3c00); // tie to even
    for (const bits of [0x0001, 0x03ff, 0x0400, 0x3555, 0x7bff, 0xbc00]) expect(f32ToF16Bits(f16BitsToF32(bits))).toBe(bits);
  });
});
