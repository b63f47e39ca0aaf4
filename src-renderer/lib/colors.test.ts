import { describe, expect, it } from 'vitest';
import { rampColor, rampRgb, UNKNOWN_CELL } from './colors.js';

describe('heatmap ramp', () => {
  it('maps 0 and 1 to the ends, clamps, and marks unknowns', () => {
    expect(rampRgb(0)).toEqual([22, 27, 45]);
    expect(rampRgb(1)).toEqual([240, 225, 80]);
    expect(rampRgb(5)).toEqual(rampRgb(1));
    expect(rampColor(Number.NaN)).toBe(UNKNOWN_CELL);
  });
  it('is brighter for higher fractions', () => {
    const lum = (f: number) => rampRgb(f).reduce((a, b) => a + b, 0);
    for (let k = 0; k < 10; k++) expect(lum((k + 1) / 10)).toBeGreaterThan(lum(k / 10));
  });
});
