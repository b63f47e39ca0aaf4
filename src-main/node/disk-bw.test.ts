import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diskBandwidthFor, diskBwCachePath, parseBandwidth, MIN_CACHEABLE_BYTES } from './disk-bw.js';
import { parseSize } from '../shared/size.js';

let dir = '';
const saved = process.env.RAMFORGE_CACHE;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-diskbw-'));
  process.env.RAMFORGE_CACHE = join(dir, 'cache');
});
afterAll(async () => {
  if (saved === undefined) delete process.env.RAMFORGE_CACHE;
  else process.env.RAMFORGE_CACHE = saved;
  await rm(dir, { recursive: true, force: true });
});

describe('disk bandwidth', () => {
  it('parses --disk-bw values', () => {
    expect(parseBandwidth('2G', parseSize)).toBe(2 * 1024 ** 3);
    expect(parseBandwidth('500MB/s', parseSize)).toBe(500e6);
    expect(() => parseBandwidth('fast', parseSize)).toThrow();
  });

  it('a file too small to say anything about the device is not measured: the figure is assumed and named so', async () => {
    const f = join(dir, 'tiny.bin');
    await writeFile(f, Buffer.alloc(4096));
    let calls = 0;
    const r = await diskBandwidthFor(f, async () => {
      calls++;
      return { bytesPerS: 1, bytesRead: 1, seconds: 1, direct: true };
    });
    expect(calls).toBe(0);
    expect(r.source).toMatch(/assumed .* too small/);
    await expect(readFile(diskBwCachePath(), 'utf8')).rejects.toThrow();
  });

  it('measures once on a large enough file, then answers from the cache', async () => {
    const f = join(dir, 'big.bin');
    const fh = await open(f, 'w');
    await fh.truncate(MIN_CACHEABLE_BYTES + 1024 * 1024); // sparse: reads are zeros, no disk use
    await fh.close();
    let calls = 0;
    const measure = async (_: string, maxBytes: number) => {
      calls++;
      return { bytesPerS: 2e9, bytesRead: maxBytes, seconds: maxBytes / 2e9, direct: true };
    };
    const first = await diskBandwidthFor(f, measure);
    expect(first).toEqual({ bytesPerS: 2e9, source: 'measured with direct I/O' });
    const cache = JSON.parse(await readFile(diskBwCachePath(), 'utf8'));
    expect(Object.values(cache.devices)).toHaveLength(1);
    const second = await diskBandwidthFor(f, measure);
    expect(calls).toBe(1);
    expect(second.bytesPerS).toBe(2e9);
    expect(second.source).toMatch(/cached/);
  });
});
