import { describe, expect, it } from 'vitest';
import { PROBE_ALIGN, PROBE_REGION_BYTES, PROBE_REGIONS, probeRegions } from './disk-probe-regions.js';

const GiB = 1024 ** 3;

describe('where the device probe reads', () => {
  it('a large file: 16 regions of 64 MiB spread from its start to its end, none overlapping, all aligned', () => {
    const size = 17.2e9;
    const r = probeRegions(size);
    expect(r).toHaveLength(PROBE_REGIONS);
    expect(r.reduce((s, x) => s + x.bytes, 0)).toBe(GiB);
    expect(r[0]!.offset).toBe(0);
    const last = r[r.length - 1]!;
    // The last region ends near the end of the file, not within its first GiB.
    expect(last.offset + last.bytes).toBeGreaterThan(size - PROBE_ALIGN - PROBE_REGION_BYTES / 16);
    expect(last.offset + last.bytes).toBeLessThanOrEqual(size);
    for (let i = 1; i < r.length; i++) expect(r[i]!.offset).toBeGreaterThanOrEqual(r[i - 1]!.offset + r[i - 1]!.bytes);
    for (const x of r) expect(x.offset % PROBE_ALIGN).toBe(0);
  });

  it('a file smaller than the 16 regions is read whole, from its start to its aligned end', () => {
    expect(probeRegions(300 * 1024 * 1024 + 5)).toEqual([{ offset: 0, bytes: 300 * 1024 * 1024 }]);
    expect(probeRegions(1000)).toEqual([]);
  });
});
