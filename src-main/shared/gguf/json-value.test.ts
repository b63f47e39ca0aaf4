import { describe, expect, it } from 'vitest';
import { kvToJson, valueSummary, valueToJson } from './json-value.js';
import { GgufValueType as V } from './ggml-types.js';

describe('metadata values as JSON', () => {
  it('64-bit integers: numbers when exact, decimal strings otherwise', () => {
    expect(valueToJson(42n)).toBe(42);
    expect(valueToJson(-7n)).toBe(-7);
    expect(valueToJson(2n ** 53n + 1n)).toBe('9007199254740993');
    expect(valueToJson(2n ** 64n - 1n)).toBe('18446744073709551615');
  });
  it('non-finite floats become strings; arrays keep their element type', () => {
    expect(valueToJson(Number.NaN)).toBe('NaN');
    expect(valueToJson(-Infinity)).toBe('-Infinity');
    const j = kvToJson({ key: 'a', type: V.ARRAY, value: { elementType: V.UINT64, items: [1n, 2n ** 60n] }, offset: 0, valueOffset: 0 });
    expect(j).toEqual({ key: 'a', type: 'array', elementType: 'uint64', length: 2, value: [1, '1152921504606846976'] });
  });
  it('human summary shortens long arrays and strings, and float32 to 7 digits', () => {
    expect(valueSummary({ elementType: V.INT32, items: [1, 2, 3, 4, 5, 6, 7, 8] })).toBe('[1, 2, 3, 4, 5, 6, … (8 int32)]');
    expect(valueSummary('x'.repeat(150))).toMatch(/^"x{100}…" \(150 chars\)$/);
    expect(valueSummary(Math.fround(1e-6), V.FLOAT32)).toBe('0.000001');
    expect(valueSummary(Math.fround(0.1), V.FLOAT64)).toBe(String(Math.fround(0.1)));
  });
});
