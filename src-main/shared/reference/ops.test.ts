import { describe, expect, it } from 'vitest';
import { argmax, cosineSimilarity, matVec, rmsNorm, ropeInPlace, silu, softmaxInPlace } from './ops.test-util.js';
import { decodeF16, roundToF16 } from './f16.test-util.js';

describe('reference ops', () => {
  it('RMSNorm divides by the root mean square and scales by the weight', () => {
    // mean(3^2, 4^2) = 12.5; sqrt = 3.5355...
    const y = rmsNorm(Float64Array.from([3, 4]), Float32Array.from([1, 2]), 0);
    expect(y[0]).toBeCloseTo(3 / Math.sqrt(12.5), 12);
    expect(y[1]).toBeCloseTo((2 * 4) / Math.sqrt(12.5), 12);
    // eps enters under the root: x = [1, 1], eps = 3 -> 1 / sqrt(1 + 3) = 0.5
    expect(Array.from(rmsNorm(Float64Array.from([1, 1]), Float32Array.from([1, 1]), 3))).toEqual([0.5, 0.5]);
  });

  it('softmax sums to one, keeps order, and ignores values past n', () => {
    const x = Float64Array.from([0, Math.log(3), 99]);
    softmaxInPlace(x, 2);
    expect(x[0]).toBeCloseTo(0.25, 12);
    expect(x[1]).toBeCloseTo(0.75, 12);
    expect(x[2]).toBe(99);
    const big = Float64Array.from([1000, 1000]);
    softmaxInPlace(big);
    expect(Array.from(big)).toEqual([0.5, 0.5]);
  });

  it('RoPE norm mode rotates adjacent pairs; neox mode rotates halves', () => {
    // head of 4, pos 1, base 10000: pair 0 turns by 1 rad, pair 1 by 10000^(-1/2) = 0.01 rad.
    const n = Float64Array.from([1, 0, 1, 0]);
    ropeInPlace(n, 0, 4, 1, 10000, 'norm');
    expect(n[0]).toBeCloseTo(Math.cos(1), 12);
    expect(n[1]).toBeCloseTo(Math.sin(1), 12);
    expect(n[2]).toBeCloseTo(Math.cos(0.01), 12);
    expect(n[3]).toBeCloseTo(Math.sin(0.01), 12);

    const x = Float64Array.from([1, 1, 0, 0]);
    ropeInPlace(x, 0, 4, 1, 10000, 'neox');
    expect(x[0]).toBeCloseTo(Math.cos(1), 12);
    expect(x[2]).toBeCloseTo(Math.sin(1), 12);
    expect(x[1]).toBeCloseTo(Math.cos(0.01), 12);
    expect(x[3]).toBeCloseTo(Math.sin(0.01), 12);

    // position 0 is the identity; nRot smaller than the head leaves the tail alone
    const id = Float64Array.from([0.3, -0.7, 2, 5]);
    ropeInPlace(id, 0, 4, 0, 10000, 'norm');
    expect(Array.from(id)).toEqual([0.3, -0.7, 2, 5]);
    const part = Float64Array.from([1, 0, 7, 8]);
    ropeInPlace(part, 0, 2, 3, 10000, 'neox');
    expect(part[0]).toBeCloseTo(Math.cos(3), 12);
    expect(part[1]).toBeCloseTo(Math.sin(3), 12);
    expect([part[2], part[3]]).toEqual([7, 8]);
  });

  it('matVec reads ggml row-major [in, out] matrices', () => {
    // ne = [2, 3]: rows (1,2), (3,4), (5,6)
    const y = matVec(Float32Array.from([1, 2, 3, 4, 5, 6]), Float64Array.from([1, -1]), 2, 3);
    expect(Array.from(y)).toEqual([-1, -1, -1]);
    expect(() => matVec(new Float32Array(5), new Float64Array(2), 2, 3)).toThrow();
  });

  it('silu, argmax and cosine', () => {
    expect(silu(0)).toBe(0);
    expect(silu(2)).toBeCloseTo(2 / (1 + Math.exp(-2)), 12);
    expect(argmax([1, 5, 5, 2])).toBe(1);
    expect(cosineSimilarity([1, 0], [0, 1])).toBe(0);
    expect(cosineSimilarity([1, 2], [2, 4])).toBeCloseTo(1, 12);
  });

  it('rounds to binary16 like the hardware', () => {
    expect(roundToF16(1)).toBe(1);
    expect(roundToF16(1 + 2 ** -11)).toBe(1); // tie -> even
    expect(roundToF16(1 + 3 * 2 ** -11)).toBe(1 + 2 ** -9); // tie -> even (up)
    expect(roundToF16(0.1)).toBe(decodeF16(0x2e66));
    expect(roundToF16(-65504)).toBe(-65504);
    expect(roundToF16(1e6)).toBe(Infinity);
    expect(roundToF16(2 ** -24)).toBe(2 ** -24);
    expect(decodeF16(0x3c00)).toBe(1);
    expect(decodeF16(0xc000)).toBe(-2);
    expect(decodeF16(0x0001)).toBe(2 ** -24);
  });
});
