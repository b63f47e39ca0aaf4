// Storage bandwidth for the planner: measured once per device on the model file itself, the
// way the stream schedule reads (direct I/O, several 4 MiB requests in flight, so the page
// cache cannot flatter it), and cached in cacheRoot()/disk-bw.json.
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cacheRoot } from './paths.js';

export const MEASURE_BYTES = 512 * 1024 * 1024;
/** Files smaller than this say nothing about the device: the figure is assumed instead. */
export const MIN_CACHEABLE_BYTES = 64 * 1024 * 1024;
export const ASSUMED_BYTES_PER_S = 1e9;

export interface DiskBandwidth {
  readonly bytesPerS: number;
  readonly source: string;
}

interface CacheFile {
  schemaVersion: 1;
  devices: Record<string, Measurement & { file: string; measuredAt: string }>;
}

export function diskBwCachePath(): string {
  return join(cacheRoot(), 'disk-bw.json');
}

/** One measurement of a device's read speed (taken in the inference worker, natively). */
export interface Measurement {
  bytesPerS: number;
  bytesRead: number;
  seconds: number;
  /** Direct I/O (the page cache cannot flatter it); false: a cold buffered read. */
  direct: boolean;
}

export type Measure = (file: string, maxBytes: number) => Promise<Measurement>;

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
export async function diskBandwidthFor(file: string, measure: Measure): Promise<DiskBandwidth> {
  const dev = String((await stat(file)).dev);
  const cache = await readCache();
  const hit = cache.devices[dev];
  if (hit && hit.bytesPerS > 0) return { bytesPerS: hit.bytesPerS, source: `measured ${hit.measuredAt.slice(0, 10)}${hit.direct ? ' with direct I/O' : ''}, cached` };
  const size = (await stat(file)).size;
  if (size < MIN_CACHEABLE_BYTES) {
    return { bytesPerS: ASSUMED_BYTES_PER_S, source: `assumed ${ASSUMED_BYTES_PER_S / 1e9} GB/s: ${file} is too small to measure the device on (pass --disk-bw)` };
  }
  const m = await measure(file, Math.min(size, MEASURE_BYTES));
  cache.devices[dev] = { ...m, file, measuredAt: new Date().toISOString() };
  const path = diskBwCachePath();
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(cache, null, 2) + '\n');
  await rename(tmp, path);
  return { bytesPerS: m.bytesPerS, source: m.direct ? 'measured with direct I/O' : 'measured cold (buffered: the file system refuses direct I/O)' };
}

/** `--disk-bw` values: a size per second, e.g. 2G, 2G/s, 500MB/s, 1.5GiB/s. */
export function parseBandwidth(text: string, parseSize: (s: string) => number): number {
  const t = text.trim().replace(/\/s$/i, '');
  const v = parseSize(t);
  if (!(v > 0)) throw new Error(`'${text}' is not a bandwidth (examples: 2G, 2G/s, 500MB/s)`);
  return v;
}
