// Storage bandwidth for the planner: measured once per model file on the file itself, the way
// the expert cache reads (direct I/O, several requests of a couple of MiB in flight, so the page
// cache cannot flatter it), scattered over the whole file (so neither the host's cache of a part
// read recently nor its read-ahead of a sequential region can either: shared/disk-probe-request.ts),
// and cached in cacheRoot()/disk-bw.json. `bench` measures it again in its own run.
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cacheRoot } from './paths.js';
import { PROBE_CHUNK, probeRequest, type ProbeRequest } from '../shared/disk-probe-request.js';
import { formatBytes } from '../shared/size.js';

/**
 * How the cached figure was measured. Entries of other methods read what the host had cached or
 * read ahead (the file's first 512 MiB, then sequential regions: 2.9–3.2 GiB/s where the file's
 * scattered reads ran at 0.8–0.9 GiB/s): measured again.
 */
export const PROBE_METHOD = 'scattered-1';
/** Files smaller than this say nothing about the device: the figure is assumed instead. */
export const MIN_CACHEABLE_BYTES = 64 * 1024 * 1024;
export const ASSUMED_BYTES_PER_S = 1e9;

export interface DiskBandwidth {
  readonly bytesPerS: number;
  readonly source: string;
}

interface CacheFile {
  schemaVersion: 1;
  /**
   * Keyed by the file measured (`dev:ino:size:mtime`): the same storage serves a small or
   * recently read file from the host's cache and a large one at the device's rate, so each model
   * is measured on its own bytes. (Entries of the earlier probe are keyed by device alone.)
   */
  devices: Record<string, Measurement & { file: string; measuredAt: string; method?: string }>;
}

type Stat = { dev: number; ino: number; size: number; mtimeMs: number };
/** A file's entry; the rate at another request size than the probe's 2 MiB (an expert's slice) is an entry of its own. */
const fileKey = (st: Stat, chunk = PROBE_CHUNK): string => `${st.dev}:${st.ino}:${st.size}:${Math.floor(st.mtimeMs)}${chunk === PROBE_CHUNK ? '' : `:chunk=${chunk}`}`;

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
  /** Requests read, each of `chunkBytes`, `threads` in flight, scattered over the file. */
  requests: number;
  chunkBytes: number;
  threads: number;
}

export type Measure = (file: string, probe: ProbeRequest) => Promise<Measurement>;

type Cached = CacheFile['devices'][string];
const current = (hit: Cached | undefined): hit is Cached => hit !== undefined && hit.bytesPerS > 0 && hit.method === PROBE_METHOD;

function describe(m: Measurement, file: string): string {
  return `${m.direct ? 'direct I/O' : 'a cold buffered read (the file system refuses direct I/O)'}: ${formatBytes(m.bytesRead)} in ${m.requests} requests of ${formatBytes(m.chunkBytes)}, ${m.threads} in flight, scattered across ${file}`;
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

/**
 * The cached read rate of `file` in requests of `chunk` bytes, else the one measured so on the
 * largest other file of its device (the sustained rate, not the host cache's; the source names
 * the file), or null.
 */
export function cachedDiskBandwidth(file: string, chunk = PROBE_CHUNK): DiskBandwidth | null {
  try {
    const st = statSync(file);
    const c = JSON.parse(readFileSync(diskBwCachePath(), 'utf8')) as CacheFile;
    if (c?.schemaVersion !== 1 || typeof c.devices !== 'object') return null;
    const own = c.devices[fileKey(st, chunk)];
    const sizeOf = (k: string) => Number(k.split(':')[2] ?? 0);
    const sameDevice = Object.entries(c.devices).filter(([k, v]) => k.startsWith(`${st.dev}:`) && current(v) && (v.chunkBytes ?? PROBE_CHUNK) === chunk);
    const hit = current(own) ? own : sameDevice.sort(([a], [b]) => sizeOf(b) - sizeOf(a)).map(([, v]) => v)[0];
    return hit ? { bytesPerS: hit.bytesPerS, source: `measured ${hit.measuredAt.slice(0, 10)} with ${describe(hit, hit.file)}, cached` } : null;
  } catch {
    return null;
  }
}

/** The cached read rate of `file` itself (in requests of `chunk` bytes), measuring (and caching) it if needed. */
export async function diskBandwidthFor(file: string, measure: Measure, chunk = PROBE_CHUNK): Promise<DiskBandwidth> {
  const st = await stat(file);
  const key = fileKey(st, chunk);
  const cache = await readCache();
  const hit = cache.devices[key];
  if (current(hit)) return { bytesPerS: hit.bytesPerS, source: `measured ${hit.measuredAt.slice(0, 10)} with ${describe(hit, hit.file)}, cached` };
  return measureDiskBandwidth(file, measure, chunk);
}

/** `file`'s read rate in requests of `chunk` bytes, measured now (whatever is cached), and cached for later plans. */
export async function measureDiskBandwidth(file: string, measure: Measure, chunk = PROBE_CHUNK): Promise<DiskBandwidth> {
  const st = await stat(file);
  const probe = st.size >= MIN_CACHEABLE_BYTES ? probeRequest(st.size, chunk) : null;
  if (!probe) {
    return { bytesPerS: ASSUMED_BYTES_PER_S, source: `assumed ${ASSUMED_BYTES_PER_S / 1e9} GB/s: ${file} is too small to measure the device on (pass --disk-bw)` };
  }
  const m = await measure(file, probe);
  const cache = await readCache();
  cache.devices[fileKey(st, chunk)] = { ...m, file, measuredAt: new Date().toISOString(), method: PROBE_METHOD };
  const path = diskBwCachePath();
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(cache, null, 2) + '\n');
  await rename(tmp, path);
  return { bytesPerS: m.bytesPerS, source: `measured with ${describe(m, file)}` };
}

/** `--disk-bw` values: a size per second, e.g. 2G, 2G/s, 500MB/s, 1.5GiB/s. */
export function parseBandwidth(text: string, parseSize: (s: string) => number): number {
  const t = text.trim().replace(/\/s$/i, '');
  const v = parseSize(t);
  if (!(v > 0)) throw new Error(`'${text}' is not a bandwidth (examples: 2G, 2G/s, 500MB/s)`);
  return v;
}
