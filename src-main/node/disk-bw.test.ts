import { describe, expect, it } from 'vitest';
import { open, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cachedDiskBandwidth, diskBandwidthFor, diskBwCachePath, parseBandwidth, MIN_CACHEABLE_BYTES } from './disk-bw.js';
import type { ProbeRequest } from '../shared/disk-probe-request.js';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { statSync } from 'node:fs';
import { parseSize } from '../shared/size.js';
import { useTempCacheRoot } from './temp-cache-root.test-util.js';

const tmp = useTempCacheRoot('ramforge-diskbw-');

describe('disk bandwidth', () => {
  it('parses --disk-bw values', () => {
    expect(parseBandwidth('2G', parseSize)).toBe(2 * 1024 ** 3);
    expect(parseBandwidth('500MB/s', parseSize)).toBe(500e6);
    expect(() => parseBandwidth('fast', parseSize)).toThrow();
  });

  it('a file too small to say anything about the device is not measured: the figure is assumed and named so', async () => {
    const f = join(tmp(), 'tiny.bin');
    await writeFile(f, Buffer.alloc(4096));
    let calls = 0;
    const r = await diskBandwidthFor(f, async () => {
      calls++;
      return { bytesPerS: 1, bytesRead: 1, seconds: 1, direct: true, requests: 1, chunkBytes: 1, threads: 1 };
    });
    expect(calls).toBe(0);
    expect(r.source).toMatch(/assumed .* too small/);
    await expect(readFile(diskBwCachePath(), 'utf8')).rejects.toThrow();
  });

  it('measures once on a large enough file, then answers from the cache', async () => {
    const f = join(tmp(), 'big.bin');
    const fh = await open(f, 'w');
    await fh.truncate(MIN_CACHEABLE_BYTES + 1024 * 1024); // sparse: reads are zeros, no disk use
    await fh.close();
    let calls = 0;
    const measure = async (_: string, p: ProbeRequest) => {
      calls++;
      return { bytesPerS: 2e9, bytesRead: p.bytes, seconds: p.bytes / 2e9, direct: true, requests: p.bytes / p.chunkBytes, chunkBytes: p.chunkBytes, threads: p.threads };
    };
    const first = await diskBandwidthFor(f, measure);
    expect(first).toEqual({ bytesPerS: 2e9, source: `measured with direct I/O: 16.0 MiB in 8 requests of 2.0 MiB, 8 in flight, scattered across ${f}` });
    const cache = JSON.parse(await readFile(diskBwCachePath(), 'utf8'));
    expect(Object.values(cache.devices)).toHaveLength(1);
    const second = await diskBandwidthFor(f, measure);
    expect(calls).toBe(1);
    expect(second.bytesPerS).toBe(2e9);
    expect(second.source).toMatch(/cached/);
  });

  it('a figure an old probe cached (the file\'s first 512 MiB, or sequential regions: what the host caches or reads ahead) is measured again, scattered over the whole file', async () => {
    const f = join(tmp(), 'large.bin');
    const fh = await open(f, 'w');
    await fh.truncate(17 * 1024 ** 3); // sparse
    await fh.close();
    await rm(diskBwCachePath(), { force: true });
    await mkdir(dirname(diskBwCachePath()), { recursive: true });
    const dev = String(statSync(f).dev);
    const old = { bytesPerS: 7.7e9, bytesRead: 512 * 1024 ** 2, seconds: 0.07, direct: true, file: f, measuredAt: '2026-12-01T14:29:45.503Z' };
    const st = statSync(f);
    const regions = { ...old, bytesPerS: 3.2e9, regions: 16, method: 'spread-regions-1' };
    await writeFile(diskBwCachePath(), JSON.stringify({ schemaVersion: 1, devices: { [dev]: old, [`${dev}:${st.ino}:${st.size}:${Math.floor(st.mtimeMs)}`]: regions } }));
    expect(cachedDiskBandwidth(f), 'a run does not take the old figure either').toBeNull();
    let seen: ProbeRequest | null = null;
    const r = await diskBandwidthFor(f, async (_, p) => {
      seen = p;
      return { bytesPerS: 0.9e9, bytesRead: p.bytes, seconds: p.bytes / 0.9e9, direct: true, requests: p.bytes / p.chunkBytes, chunkBytes: p.chunkBytes, threads: p.threads };
    });
    expect(r.bytesPerS).toBe(0.9e9);
    expect(seen).toMatchObject({ bytes: 512 * 1024 ** 2, scatter: true });
    expect(cachedDiskBandwidth(f)?.bytesPerS).toBe(0.9e9);
  });

  it('each model file is measured on its own bytes (a small file the host caches reads faster than a large one on the same device); an unmeasured file takes the figure of its device’s largest measured file, named', async () => {
    await rm(diskBwCachePath(), { force: true });
    const make = async (name: string, bytes: number) => {
      const f = join(tmp(), name);
      const fh = await open(f, 'w');
      await fh.truncate(bytes);
      await fh.close();
      return f;
    };
    const small = await make('small-model.bin', 800 * 1024 ** 2);
    const large = await make('large-model.bin', 17 * 1024 ** 3);
    const other = await make('other-model.bin', 2 * 1024 ** 3);
    const rate = (bytesPerS: number) => async (_: string, p: ProbeRequest) => ({ bytesPerS, bytesRead: p.bytes, seconds: 1, direct: true, requests: 1, chunkBytes: p.chunkBytes, threads: p.threads });
    expect((await diskBandwidthFor(small, rate(6e9))).bytesPerS).toBe(6e9);
    expect((await diskBandwidthFor(large, rate(1.4e9))).bytesPerS).toBe(1.4e9);
    expect(cachedDiskBandwidth(small)?.bytesPerS).toBe(6e9);
    expect(cachedDiskBandwidth(large)?.bytesPerS).toBe(1.4e9);
    const fallback = cachedDiskBandwidth(other);
    expect(fallback?.bytesPerS).toBe(1.4e9);
    expect(fallback?.source).toContain(large);
  });

  it("the rate in reads of one expert's slice is a figure of its own beside the 2 MiB one, for the same file", async () => {
    await rm(diskBwCachePath(), { force: true });
    const f = join(tmp(), 'moe-model.bin');
    const fh = await open(f, 'w');
    await fh.truncate(4 * 1024 ** 3);
    await fh.close();
    const rate = (bytesPerS: number) => async (_: string, p: ProbeRequest) => ({ bytesPerS, bytesRead: p.bytes, seconds: 1, direct: true, requests: p.bytes / p.chunkBytes, chunkBytes: p.chunkBytes, threads: p.threads });
    const slice = 864 * 1024;
    expect((await diskBandwidthFor(f, rate(4e9))).bytesPerS).toBe(4e9);
    const small = await diskBandwidthFor(f, rate(1.5e9), slice);
    expect(small.bytesPerS).toBe(1.5e9);
    expect(small.source).toMatch(/requests of 864\.0 KiB/);
    expect(cachedDiskBandwidth(f)?.bytesPerS).toBe(4e9);
    expect(cachedDiskBandwidth(f, slice)?.bytesPerS).toBe(1.5e9);
    // Never measured at another size: nothing, not the 2 MiB figure.
    expect(cachedDiskBandwidth(f, 288 * 1024)).toBeNull();
  });
});
