import { describe, expect, it } from 'vitest';
import { sample } from './sample.test-util.js';
import { limitHitsSeries, pinnedResidentSeries, readRateSeries } from './stream-series.js';

describe('limitHitsSeries', () => {
  it('counts limit hits from the first decode sample on, leaving load and prompt hits out', () => {
    const pts = limitHitsSeries([
      sample({ phase: 'load', tMs: 0, limitHits: 500 }),
      sample({ phase: 'prompt', tMs: 1000, limitHits: 900 }),
      sample({ tMs: 2000, limitHits: 1000 }),
      sample({ tMs: 3000, limitHits: 1004 }),
      sample({ tMs: 4000, limitHits: 1010 }),
      sample({ phase: 'idle', tMs: 5000, limitHits: 2000 }),
    ]);
    expect(pts).toEqual([
      { tS: 2, hits: 0 },
      { tS: 3, hits: 4 },
      { tS: 4, hits: 10 },
    ]);
  });
  it('is empty when the run was not capped (no counter)', () => {
    expect(limitHitsSeries([sample({ tMs: 1 }), sample({ tMs: 2 })])).toEqual([]);
  });
});

describe('pinnedResidentSeries', () => {
  it('gives the locked weights’ resident share at each decode sample', () => {
    const pts = pinnedResidentSeries([
      sample({ phase: 'load', tMs: 0, pinnedResident: 10, pinnedBytes: 400 }),
      sample({ tMs: 500, pinnedResident: 400, pinnedBytes: 400 }),
      sample({ tMs: 1000, pinnedResident: 396, pinnedBytes: 400 }),
    ]);
    expect(pts).toEqual([
      { tS: 0.5, fraction: 1 },
      { tS: 1, fraction: 0.99 },
    ]);
  });
  it('skips samples without locked weights (no stream schedule, or zero locked bytes)', () => {
    expect(pinnedResidentSeries([sample({ tMs: 1 }), sample({ tMs: 2, pinnedResident: 0, pinnedBytes: 0 })])).toEqual([]);
  });
});

describe('readRateSeries', () => {
  it('divides decode reads by the time they took, each point spanning at least minDtMs', () => {
    const pts = readRateSeries(
      [
        sample({ phase: 'prompt', tMs: 0, readBytes: 0 }),
        sample({ tMs: 1000, readBytes: 1000 }),
        sample({ tMs: 1100, readBytes: 1200 }), // too close to the base: folded into the next point
        sample({ tMs: 1500, readBytes: 2000 }),
        sample({ tMs: 2000, readBytes: 2000 }),
      ],
      250,
    );
    expect(pts).toEqual([
      { tS: 1.5, bytesPerS: 2000 },
      { tS: 2, bytesPerS: 0 },
    ]);
  });
  it('starts over when the counter goes down (a new worker)', () => {
    const pts = readRateSeries([sample({ tMs: 0, readBytes: 5000 }), sample({ tMs: 1000, readBytes: 100 }), sample({ tMs: 2000, readBytes: 600 })]);
    expect(pts).toEqual([{ tS: 2, bytesPerS: 500 }]);
  });
  it('is empty without read counters', () => {
    expect(readRateSeries([sample({ tMs: 0 }), sample({ tMs: 1000 })])).toEqual([]);
  });
});
