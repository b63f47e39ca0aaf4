// The measured compute of schedules (shared/plan/measured-compute.ts), cached per model file and
// schedule in cacheRoot()/compute.json, as the device's read rate is in disk-bw.json: `bench`
// measures the schedule it compares before its runs, and every later plan of the same file and
// schedule (`plan`, `run`, the app) reads it back.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cacheRoot } from './paths.js';
import type { ComputeLookup, MeasuredCompute } from '../shared/plan/measured-compute.js';

/** How an entry was measured; entries of other methods are measured again. */
export const COMPUTE_METHOD = 'shadow-decode-1';

interface Entry {
  secondsPerToken: number;
  tokens: number;
  measuredAt: string;
  method: string;
}

interface CacheFile {
  schemaVersion: 1;
  /** Keyed by `dev:ino:size:mtime` of the model file, then by the schedule's key. */
  files: Record<string, Record<string, Entry>>;
}

export function computeCachePath(): string {
  return join(cacheRoot(), 'compute.json');
}

function fileKeyOf(file: string): string | null {
  try {
    const st = statSync(file);
    return `${st.dev}:${st.ino}:${st.size}:${Math.floor(st.mtimeMs)}`;
  } catch {
    return null;
  }
}

function parse(text: string): CacheFile | null {
  try {
    const c = JSON.parse(text) as CacheFile;
    return c?.schemaVersion === 1 && typeof c.files === 'object' && c.files !== null ? c : null;
  } catch {
    return null;
  }
}

const describe = (e: Entry, when: string): string =>
  `measured ${when}: ${(e.secondsPerToken * 1000).toFixed(1)} ms a token over ${e.tokens} tokens of this schedule on the model's shadow (its tensor data read as zeros, nothing from storage)`;

/** The lookup a plan of `file` is given: the cached measurement of a schedule, or null. */
export function computeLookup(file: string): ComputeLookup {
  return (key) => {
    const fk = fileKeyOf(file);
    if (!fk) return null;
    let c: CacheFile | null = null;
    try {
      c = parse(readFileSync(computeCachePath(), 'utf8'));
    } catch {
      return null;
    }
    const e = c?.files[fk]?.[key];
    if (!e || e.method !== COMPUTE_METHOD || !(e.secondsPerToken > 0)) return null;
    return { secondsPerToken: e.secondsPerToken, source: describe(e, `${e.measuredAt.slice(0, 10)}, cached`) };
  };
}

/** Records a measurement of `file` under `key`; what a plan reads back. */
export async function cacheCompute(file: string, key: string, secondsPerToken: number, tokens: number): Promise<MeasuredCompute> {
  const entry: Entry = { secondsPerToken, tokens, measuredAt: new Date().toISOString(), method: COMPUTE_METHOD };
  const fk = fileKeyOf(file);
  if (fk) {
    let cache: CacheFile = { schemaVersion: 1, files: {} };
    try {
      cache = parse(await readFile(computeCachePath(), 'utf8')) ?? cache;
    } catch {
      /* absent: a new file */
    }
    cache.files[fk] = { ...cache.files[fk], [key]: entry };
    const path = computeCachePath();
    await mkdir(dirname(path), { recursive: true });
    const tmp = `${path}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(cache, null, 2) + '\n');
    await rename(tmp, path);
  }
  return { secondsPerToken, source: describe(entry, 'now') };
}
