import { describe, expect, it } from 'vitest';
import { sample } from './sample.test-util.js';
import { bytesPerTokenSeries, cgroupSeries, eventCounts, heatmapGrid, pickColumns, tokSSeries } from './series.js';

describe('heatmapGrid', () => {
  it('gives the resident fraction per layer and sample, NaN when unknown', () => {
    const g = heatmapGrid([100, 200], [sample({ tMs: 1, layerResident: [50, null] }), sample({ tMs: 2, layerResident: [100, 400] })]);
    expect(g.rows).toBe(2);
    expect(g.cols).toBe(2);
    expect([...g.cells.slice(0, 2)]).toEqual([0.5, 1]);
    expect(Number.isNaN(g.cells[2])).toBe(true);
    expect(g.cells[3]).toBe(1); // clamped
    expect(g.tMs).toEqual([1, 2]);
  });
  it('downsamples to at most maxCols columns, keeping first and last', () => {
    const samples = Array.from({ length: 1000 }, (_, i) => sample({ tMs: i, layerResident: [i] }));
    const g = heatmapGrid([1000], samples, 100);
    expect(g.cols).toBe(100);
    expect(g.tMs[0]).toBe(0);
    expect(g.tMs[99]).toBe(999);
  });
  it('is empty without samples', () => {
    expect(heatmapGrid([1, 2], []).cols).toBe(0);
  });
  it('pickColumns keeps all indices when few', () => {
    expect(pickColumns(3, 10)).toEqual([0, 1, 2]);
  });
});

describe('bytesPerTokenSeries', () => {
  it('divides reads between token boundaries by the tokens decoded', () => {
    const pts = bytesPerTokenSeries([
      sample({ phase: 'prompt', token: 0, readBytes: 0 }),
      sample({ token: 0, readBytes: 1000 }),
      sample({ token: 0, readBytes: 1300 }),
      sample({ token: 1, readBytes: 1500 }),
      sample({ token: 3, readBytes: 2500 }),
    ]);
    expect(pts).toEqual([
      { token: 1, bytes: 500 },
      { token: 3, bytes: 500 },
    ]);
  });
  it('skips samples without read counters', () => {
    expect(bytesPerTokenSeries([sample({ token: 1 }), sample({ token: 2 })])).toEqual([]);
  });
});

describe('other series', () => {
  it('tok/s and cgroup points, sorted by time', () => {
    const s = [sample({ tMs: 2000, decodeTokS: 4, cgroupBytes: 10, cgroupLimitBytes: 20 }), sample({ tMs: 1000 })];
    expect(tokSSeries(s)).toEqual([{ tS: 2, tokS: 4 }]);
    expect(cgroupSeries(s, [{ tMs: 500, usageBytes: 5, limitBytes: 20 }])).toEqual([
      { tS: 0.5, usage: 5, limit: 20 },
      { tS: 2, usage: 10, limit: 20 },
    ]);
  });
  it('derives tok/s from token counts when samples carry no rate', () => {
    const s = [sample({ tMs: 0, token: 0, phase: 'prompt' }), sample({ tMs: 100, token: 1 }), sample({ tMs: 600, token: 6 }), sample({ tMs: 700, token: 6 })];
    expect(tokSSeries(s)).toEqual([{ tS: 0.6, tokS: 10 }]);
  });
  it('counts events by kind', () => {
    const c = eventCounts([
      { tMs: 0, kind: 'drop', layer: 1, bytes: 1 },
      { tMs: 0, kind: 'drop', layer: 2, bytes: 1 },
      { tMs: 0, kind: 'stall', layer: 2, bytes: 0 },
    ]);
    expect(c).toEqual({ prefetch: 0, drop: 2, late: 0, stall: 1, release: 0 });
  });
});
