// Storage bandwidth for the planner: measured once by reading ~256 MiB of the model itself
// sequentially, cached per device in cacheRoot()/disk-bw.json. The pages may already be in
// the page cache (cold reads are not guaranteed), so the figure is labelled "may be optimistic".
import { mkdir, open, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cacheRoot } from './paths.js';

export const MEASURE_BYTES = 256 * 1024 * 1024;
/** Below this many bytes read, a measurement is not cached (a tiny file says nothing). */
export const MIN_CACHEABLE_BYTES = 64 * 1024 * 1024;

export interface DiskBandwidth {
  readonly bytesPerS: number;
  readonly source: string;
}

interface CacheFile {
  schemaVersion: 1;
  devices: Record<string, { bytesPerS: number; bytesRead: number; seconds: number; file: string; measuredAt: string }>;
}

export function diskBwCachePath(): string {
  return join(cacheRoot(), 'disk-bw.json');
}

export async function measureReadBandwidth(file: string, maxBytes = MEASURE_BYTES): Promise<{ bytesPerS: number; bytesRead: number; seconds: number }> {
  const fh = await open(file, 'r');
  try {
    const chunk = Buffer.alloc(4 * 1024 * 1024);
    let total = 0;
    const t0 = process.hrtime.bigint();
    while (total < maxBytes) {
      const { bytesRead } = await fh.read(chunk, 0, Math.min(chunk.length, maxBytes - total), total);
      if (bytesRead === 0) break;
      total += bytesRead;
    }
    const seconds = Math.max(1e-6, Number(process.hrtime.bigint() - t0) / 1e9);
    return { bytesPerS: total / seconds, bytesRead: total, seconds };
  } finally {
    await fh.close();
  }
}

async function readCache(): Promise<CacheFile> {
  try {
    const c = JSON.parse(await readFile(diskBwCachePath(), 'utf8')) as CacheFile;
    if (c && c.schemaVersion === 1 && typeof c.devices === 'object') return c;
  } catch {
    /* absent or unreadable: measure again */
  }
  return { schemaVersion: 1, devices: {} };
}

/** The cached bandwidth of the device holding `file`, or null when it was never measured. */
export function cachedDiskBandwidth(file: string): DiskBandwidth | null {
  try {
    const dev = String(statSync(file).dev);
    const c = JSON.parse(readFileSync(diskBwCachePath(), 'utf8')) as CacheFile;
    const hit = c?.schemaVersion === 1 ? c.devices?.[dev] : undefined;
    return hit && hit.bytesPerS > 0 ? { bytesPerS: hit.bytesPerS, source: `measured ${hit.measuredAt.slice(0, 10)}, cached` } : null;
  } catch {
    return null;
  }
}

/** The cached bandwidth of the device holding `file`, measuring (and caching) it if needed. */
export async function diskBandwidthFor(file: string): Promise<DiskBandwidth> {
  const dev = String((await stat(file)).dev);
  const cache = await readCache();
  const hit = cache.devices[dev];
  if (hit && hit.bytesPerS > 0) return { bytesPerS: hit.bytesPerS, source: `measured ${hit.measuredAt.slice(0, 10)}, cached (may be optimistic)` };
  const m = await measureReadBandwidth(file);
  if (m.bytesRead < MIN_CACHEABLE_BYTES) {
    return { bytesPerS: m.bytesPerS, source: `measured on ${Math.round(m.bytesRead / 1024)} KiB only (unreliable; pass --disk-bw)` };
  }
  cache.devices[dev] = { ...m, file, measuredAt: new Date().toISOString() };
  const path = diskBwCachePath();
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(cache, null, 2) + '\n');
  await rename(tmp, path);
  return { bytesPerS: m.bytesPerS, source: 'measured (may be optimistic)' };
}

/** `--disk-bw` values: a size per second, e.g. 2G, 2G/s, 500MB/s, 1.5GiB/s. */
export function parseBandwidth(text: string, parseSize: (s: string) => number): number {
  const t = text.trim().replace(/\/s$/i, '');
  const v = parseSize(t);
  if (!(v > 0)) throw new Error(`'${text}' is not a bandwidth (examples: 2G, 2G/s, 500MB/s)`);
  return v;
}
