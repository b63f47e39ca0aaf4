import { describe, expect, it } from 'vitest';
import type { ResidencySample } from '../residency-types.js';
import { decodeFigures, floorBytesPerToken } from './decode-figures.js';

function s(p: Partial<ResidencySample>): ResidencySample {
  return {
    tMs: 0, token: 0, phase: 'decode', layerResident: [100, 50], persistentResident: 200, rssBytes: null, cgroupBytes: 1000, cgroupLimitBytes: 2000,
    limitHits: 0, pinnedResident: 300, pinnedBytes: 300, readBytes: 0, majorFaults: 0, decodeTokS: null, events: [], ...p,
  };
}

describe('decode figures', () => {
  const samples = [
    s({ phase: 'prompt', limitHits: 90, readBytes: 0 }),
    s({ token: 1, tMs: 1000, limitHits: 100, readBytes: 1000 }),
    s({ token: 5, tMs: 2000, limitHits: 104, readBytes: 5000, pinnedResident: 270, cgroupBytes: 1100 }),
    s({ token: 9, tMs: 3000, limitHits: 110, readBytes: 9000 }),
  ];

  it('counts only the limit hits between the first and last decode sample', () => {
    expect(decodeFigures(samples, { weightsPerToken: 1000, capBytes: 2000, windowBytes: 0 }).limitHits.value).toBe(10);
  });

  it('gives the lowest resident share of the locked weights', () => {
    expect(decodeFigures(samples, { weightsPerToken: 1000, capBytes: 2000, windowBytes: 0 }).pinnedResidentMin.value).toBeCloseTo(0.9);
  });

  it('non-weight memory is the peak of charge − model pages − window, and the floor follows from it', () => {
    const f = decodeFigures(samples, { weightsPerToken: 1000, capBytes: 900, windowBytes: 100 });
    // peak charge 1100 − (200 + 150) − 100 = 650
    expect(f.nonWeightBytes.value).toBe(650);
    // 1000 − (900 − 650) = 750
    expect(f.floorBytesPerToken.value).toBe(750);
    expect(f.readRate.value).toBe(4000);
  });

  it('unknown is null with the reason, never a silent 0', () => {
    const uncapped = samples.map((x) => ({ ...x, cgroupBytes: null, limitHits: null, pinnedResident: null }));
    const f = decodeFigures(uncapped, { weightsPerToken: 1000, capBytes: 900, windowBytes: 0 });
    expect(f.limitHits.value).toBeNull();
    expect(f.pinnedResidentMin.value).toBeNull();
    expect(f.floorBytesPerToken).toEqual({ value: null, note: expect.stringMatching(/not capped/) });
    expect(floorBytesPerToken(null, 900, { value: 1, note: '' }).value).toBeNull();
    expect(floorBytesPerToken(1000, 5000, { value: 10, note: '' }).value).toBe(0);
  });
});
