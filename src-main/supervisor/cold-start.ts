// Cold start: drop the clean page cache of the model files before the worker loads them, so
// the run pays for what it reads and the cap means something. posix_fadvise(DONTNEED) per
// file: through the native addon when the caller passes it, else GNU dd's `iflag=nocache
// count=0` (which issues exactly that call for the whole file). Verified with util-linux
// fincore when it is installed. Never drops caches globally.
import { execFile } from 'node:child_process';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { promisify } from 'node:util';
import { mountForPath, parseMountinfo } from '../shared/cgroup/mountinfo.js';

const run = promisify(execFile);

import type { DropResult, DropStatus } from '../shared/cgroup/cold-start-types.js';

export type { DropResult, DropStatus };

export interface DropOptions {
  /** posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) from the native addon, when loaded. */
  fadviseDontNeed?: (path: string) => void;
}

const MEMORY_FS = new Set(['tmpfs', 'ramfs', 'devtmpfs', 'hugetlbfs']);

/** Resident bytes of the file per fincore, or null when fincore is missing or fails. */
export async function residentBytes(path: string): Promise<number | null> {
  try {
    const { stdout } = await run('fincore', ['--bytes', '--noheadings', '--raw', '--output', 'RES', path]);
    const n = Number(stdout.trim());
    return Number.isFinite(n) ? n : null;
  } catch {
    return null;
  }
}

async function dropOne(path: string, opts: DropOptions, mountinfo: string | null): Promise<DropResult> {
  const r: DropResult = {
    path,
    status: 'failed',
    method: null,
    fsType: null,
    sizeBytes: null,
    residentBeforeBytes: null,
    residentAfterBytes: null,
    reason: null,
  };
  let real: string;
  try {
    real = realpathSync(path);
    r.sizeBytes = statSync(real).size;
  } catch (e) {
    r.reason = (e as Error).message;
    return r;
  }
  if (mountinfo !== null) r.fsType = mountForPath(parseMountinfo(mountinfo), real)?.fsType ?? null;
  r.residentBeforeBytes = await residentBytes(real);
  if (r.fsType !== null && MEMORY_FS.has(r.fsType)) {
    r.status = 'impossible';
    r.reason = `not possible on ${r.fsType}: the file's data lives only in memory`;
    r.residentAfterBytes = r.residentBeforeBytes;
    return r;
  }
  try {
    // Dirty pages cannot be dropped: write them back first (coreutils sync FILE = fdatasync).
    await run('sync', ['--data', real]).catch(() => undefined);
    if (opts.fadviseDontNeed) {
      r.method = 'addon-fadvise';
      opts.fadviseDontNeed(real);
    } else {
      r.method = 'dd-nocache';
      await run('dd', [`if=${real}`, 'iflag=nocache', 'count=0', 'status=none']);
    }
  } catch (e) {
    r.reason = `posix_fadvise(DONTNEED) failed: ${(e as Error).message}`;
    return r;
  }
  r.residentAfterBytes = await residentBytes(real);
  if (r.residentAfterBytes === null) {
    r.status = 'requested';
    r.reason = 'fincore (util-linux) is not available: the drop was requested but not verified';
  } else if (r.residentAfterBytes > 0) {
    r.status = 'partial';
    r.reason = `${r.residentAfterBytes} bytes stayed resident (mapped by a running process, dirty, or locked)`;
  } else {
    r.status = 'dropped';
  }
  return r;
}

export async function dropFileCache(paths: string[], opts: DropOptions = {}): Promise<DropResult[]> {
  let mountinfo: string | null = null;
  try {
    mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    /* not Linux: fsType stays null */
  }
  const out: DropResult[] = [];
  for (const p of paths) out.push(await dropOne(p, opts, mountinfo));
  return out;
}
