// PUT /upload?name=…: a dropped file streamed to disk (browser mode has no file paths), with a
// bounded size, a sanitised name, a temp file renamed into place, and nothing left on failure:
// not the `.part` file, not its fd, not its share of the quota.
//
// Admission (the quota and the free-space check) runs one upload at a time, so two uploads
// cannot both pass a check that only one of them fits; uploads then stream side by side, each
// counted against the disk until it has written its bytes.
import { open, readdir, rename, rm, stat, statfs, mkdir, type FileHandle } from 'node:fs/promises';
import { processAlive } from '../node/process-alive.js';
import type { IncomingMessage } from 'node:http';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { watchRequest } from './request-watch.js';

export class UploadError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A safe file name: last path component, [A-Za-z0-9._-] only, no leading dot, ≤ 120 chars. */
export function sanitizeUploadName(raw: string): string {
  const last = raw.split(/[\\/]/).pop() ?? '';
  let s = last.normalize('NFKC').replace(/[^A-Za-z0-9._-]/g, '_').replace(/^[.]+/, '');
  if (s.length > 120) {
    const dot = s.lastIndexOf('.');
    const ext = dot > 0 && s.length - dot <= 10 ? s.slice(dot) : '';
    s = s.slice(0, 120 - ext.length) + ext;
  }
  return s === '' || /^[._-]*$/.test(s) ? 'upload.gguf' : s;
}

export interface UploadLimits {
  /** Largest single file. */
  maxBytes: number;
  /** All uploads together: files already in the folder plus bytes still arriving. */
  quotaBytes: number;
  /** Keep at least this much free on the data disk after the upload. */
  reserveBytes: number;
  /** Uploads streaming at once. */
  maxConcurrent: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  maxBytes: 64 * 1024 ** 3,
  quotaBytes: 256 * 1024 ** 3,
  reserveBytes: 512 * 1024 ** 2,
  maxConcurrent: 4,
};

// `.<name>.<pid>.<random>.part`: the pid says whether the server that wrote it still runs.
const PART = /^\..*\.part$/;
const PART_PID = /\.(\d+)\.[0-9a-f]{8}\.part$/;

async function diskFree(dir: string): Promise<number> {
  const fs = await statfs(dir);
  return fs.bavail * fs.bsize;
}

interface Active {
  declared: number;
  received: number;
  /** The temp file being written and the path it will be renamed to (once known). */
  paths: string[];
}

export class UploadStore {
  private readonly active = new Set<Active>();
  private gate: Promise<unknown> = Promise.resolve();

  constructor(
    readonly dir: string,
    readonly limits: UploadLimits,
    /** Free bytes on the folder's disk (statfs; tests give a fixed figure). */
    private readonly freeBytes: (dir: string) => Promise<number> = diskFree,
  ) {}

  /**
   * Whether `path` is an upload still being written: its temp file, or the name it will take
   * (a same-named older upload there is about to be replaced). Such a path is never loaded.
   */
  isBeingWritten(path: string): boolean {
    const p = resolve(path);
    for (const a of this.active) if (a.paths.includes(p)) return true;
    return false;
  }

  /** Bytes of uploads still streaming (their declared sizes). */
  inFlightBytes(): number {
    let n = 0;
    for (const a of this.active) n += a.declared;
    return n;
  }

  /**
   * Removes `.part` files a server that is no longer running left behind (a crash, a kill).
   * Another running server's parts are kept. Answers how many were removed.
   */
  async sweep(): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return 0;
    }
    let removed = 0;
    for (const n of names) {
      if (!PART.test(n)) continue;
      const pid = Number(PART_PID.exec(n)?.[1] ?? NaN);
      if (Number.isSafeInteger(pid) && pid !== process.pid && processAlive(pid)) continue;
      await rm(join(this.dir, n), { force: true }).then(() => removed++, () => {});
    }
    return removed;
  }

  /** Streams the request body into the folder under a sanitised name; answers the final path. */
  async receive(req: IncomingMessage, rawName: string): Promise<string> {
    // First, before any await: from here on an aborted client is noticed, whenever it happens.
    const watch = watchRequest(req);
    try {
      const lenHeader = req.headers['content-length'];
      if (lenHeader === undefined || !/^\d{1,16}$/.test(lenHeader)) throw new UploadError(411, 'an upload needs a Content-Length');
      const declared = Number(lenHeader);
      if (declared > this.limits.maxBytes) throw new UploadError(413, `file is ${declared} bytes; the upload limit is ${this.limits.maxBytes} bytes`);
      const entry: Active = { declared, received: 0, paths: [] };
      const gone = (): UploadError | null => {
        const r = watch.gone();
        return r === null ? null : new UploadError(400, `upload aborted: ${r}`);
      };
      await this.admit(entry, gone);
      try {
        return await this.write(req, entry, sanitizeUploadName(rawName), gone);
      } finally {
        this.active.delete(entry);
      }
    } finally {
      watch.stop();
    }
  }

  /** One admission at a time: quota, concurrency and free space checked against every upload in flight. */
  private admit(entry: Active, gone: () => Error | null): Promise<void> {
    const run = async (): Promise<void> => {
      const g = gone();
      if (g) throw g;
      if (this.active.size >= this.limits.maxConcurrent) throw new UploadError(429, `${this.active.size} uploads are already running; try again when one has finished`);
      await mkdir(this.dir, { recursive: true });
      const stored = await this.storedBytes();
      const inFlight = this.inFlightBytes();
      if (stored + inFlight + entry.declared > this.limits.quotaBytes) {
        throw new UploadError(413, `the upload folder would hold ${stored + inFlight + entry.declared} bytes; its quota is ${this.limits.quotaBytes} bytes (delete uploads from ${this.dir})`);
      }
      const free = await this.freeBytes(this.dir);
      let unwritten = 0;
      for (const a of this.active) unwritten += Math.max(0, a.declared - a.received);
      if (entry.declared + unwritten + this.limits.reserveBytes > free) {
        throw new UploadError(507, `not enough free disk space for ${entry.declared} bytes in ${this.dir}`);
      }
      const g2 = gone();
      if (g2) throw g2;
      this.active.add(entry);
    };
    const turn = this.gate.then(run);
    this.gate = turn.catch(() => {});
    return turn;
  }

  /** Bytes of finished uploads in the folder (`.part` files are counted as in flight instead). */
  private async storedBytes(): Promise<number> {
    let total = 0;
    for (const n of await readdir(this.dir).catch(() => [] as string[])) {
      if (PART.test(n)) continue;
      total += await stat(join(this.dir, n)).then((s) => (s.isFile() ? s.size : 0), () => 0);
    }
    return total;
  }

  private async write(req: IncomingMessage, entry: Active, name: string, gone: () => Error | null): Promise<string> {
    const final = join(this.dir, name);
    const part = join(this.dir, `.${name}.${process.pid}.${randomBytes(4).toString('hex')}.part`);
    entry.paths = [resolve(part), resolve(final)];
    let fh: FileHandle | null = null;
    let done = false;
    try {
      fh = await open(part, 'wx', 0o600);
      const g = gone();
      if (g) throw g;
      // Async iteration reads with backpressure and throws if the client goes away mid-body. It
      // must not destroy the request when we stop early (a full disk): the client gets a 507.
      const body = { [Symbol.asyncIterator]: () => req.iterator({ destroyOnReturn: false }) } as AsyncIterable<Buffer>;
      for await (const chunk of body) {
        entry.received += chunk.length;
        if (entry.received > entry.declared) throw new UploadError(400, 'body longer than its Content-Length');
        await fh.write(chunk);
      }
      const g2 = gone();
      if (g2) throw g2;
      if (entry.received !== entry.declared) throw new UploadError(400, `upload ended after ${entry.received} of ${entry.declared} bytes`);
      await fh.sync();
      await fh.close();
      fh = null;
      await rename(part, final);
      done = true;
      return final;
    } catch (e) {
      // The iterator's own error for a vanished client is a premature close; say what happened.
      const code = (e as NodeJS.ErrnoException)?.code;
      if (code === 'ENOSPC' || code === 'EDQUOT') throw new UploadError(507, `the disk filled up while writing ${name} in ${this.dir}`);
      throw gone() ?? e;
    } finally {
      if (fh) await fh.close().catch(() => {});
      if (!done) await rm(part, { force: true }).catch(() => {});
    }
  }
}
