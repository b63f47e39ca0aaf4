import { describe, expect, it } from 'vitest';
import { MIN_SAMPLE_GAP_MS, sampleGapMs } from './sample-gap.js';

describe('the gap between residency samples', () => {
  it('is the least gap while a sample is cheap', () => {
    expect(sampleGapMs(0.2)).toBe(MIN_SAMPLE_GAP_MS);
  });
  it('grows with what a sample cost, so that sampling takes a bounded share of a core', () => {
    expect(sampleGapMs(10)).toBe(400);
    expect(sampleGapMs(20)).toBeGreaterThan(sampleGapMs(10));
  });
  it('never leaves the dashboard without a sample for more than a second', () => {
    expect(sampleGapMs(500)).toBe(1000);
  });
});
