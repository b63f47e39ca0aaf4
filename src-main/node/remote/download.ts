// A resumable download: written to `<name>.part` (with `<name>.part.json` recording the URL and
// the server's validators), resumed from the .part with a range request guarded by If-Range,
// checked for free space against the remaining bytes, hashed (sha256) as it is written, and
// renamed to its name only when complete and verified. A wrong checksum removes the file.
import { createHash, type Hash } from 'node:crypto';
import { open, readFile, rename, rm, stat, statfs, writeFile } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import { dirname } from 'node:path';
import { parseContentRange, parseSha256File, publishedSha256 } from '../../shared/remote/http-headers.js';
import { redactUrl, urlFileName } from '../../shared/remote/model-url.js';
import { HttpError, httpGet, readBody, statusError, type GetOptions } from './http-get.js';
import { drainBody } from './drain-body.js';

export type DownloadErrorKind = 'checksum' | 'space' | 'interrupted' | 'size';

export class DownloadError extends Error {
  constructor(
    message: string,
    readonly kind: DownloadErrorKind,
  ) {
    super(message);
    this.name = 'DownloadError';
  }
}

export interface ExpectedSha {
  readonly sha256: string;
  /** Where it came from: '--sha256', 'X-Linked-Etag', '<name>.sha256'. */
  readonly from: string;
}

export interface DownloadOptions {
  readonly url: string;
  /** The final path; `<dest>.part` while downloading. */
  readonly dest: string;
  /** The sha256 to verify against; without it the server's published one is used, if any. */
  readonly sha256?: ExpectedSha | null;
  readonly http?: GetOptions;
  /** Retries after an interruption within this run (each resumes from the .part). */
  readonly retries?: number;
  readonly retryDelayMs?: number;
  readonly onProgress?: (p: { done: number; total: number | null; sessionBytes: number; resumedFrom: number }) => void;
  /** Free bytes on the file system of `dir` (statfs by default; tests replace it). */
  readonly freeBytes?: (dir: string) => Promise<number>;
}

export interface DownloadResult {
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
  /** What the file was checked against; null: nothing was published, not verified. */
  readonly verifiedAgainst: ExpectedSha | null;
  /** Bytes already in the .part when this run started. */
  readonly resumedFrom: number;
  readonly requests: number;
}

interface PartMeta {
  url: string;
  etag: string | null;
  lastModified: string | null;
  total: number | null;
}

export async function statfsFreeBytes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
}

async function readMeta(path: string): Promise<PartMeta | null> {
  try {
    const v = JSON.parse(await readFile(path, 'utf8')) as PartMeta;
    return typeof v?.url === 'string' ? v : null;
  } catch {
    return null;
  }
}

async function sizeOrZero(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

async function hashPrefix(path: string, n: number): Promise<Hash> {
  const h = createHash('sha256');
  if (n === 0) return h;
  for await (const chunk of createReadStream(path, { start: 0, end: n - 1 })) h.update(chunk as Buffer);
  return h;
}

/** The hash in `<url>.sha256`, when the server publishes one there; null otherwise (never fatal). */
export async function siblingSha256(url: string, http?: GetOptions): Promise<{ sha: ExpectedSha | null; requests: number }> {
  const u = new URL(url);
  u.pathname += '.sha256';
  try {
    const r = await httpGet(u.href, http);
    if (r.res.statusCode !== 200) {
      r.res.destroy();
      return { sha: null, requests: r.requests };
    }
    const text = (await readBody(r.res, 4096, redactUrl(u))).toString('utf8');
    const hex = parseSha256File(text, urlFileName(url));
    return { sha: hex ? { sha256: hex, from: `${urlFileName(url)}.sha256` } : null, requests: r.requests };
  } catch {
    return { sha: null, requests: 1 };
  }
}

export async function download(o: DownloadOptions): Promise<DownloadResult> {
  const part = `${o.dest}.part`;
  const metaPath = `${o.dest}.part.json`;
  const freeBytes = o.freeBytes ?? statfsFreeBytes;
  const where = redactUrl(o.url);
  let meta = await readMeta(metaPath);
  let have = meta?.url === o.url ? await sizeOrZero(part) : 0;
  if (have === 0) meta = null;
  const resumedFrom = have;
  let hash = await hashPrefix(part, have);
  let expected: ExpectedSha | null = o.sha256 ?? null;
  let requests = 0;
  let total: number | null = meta?.total ?? null;
  let sessionBytes = 0;
  const retries = o.retries ?? 3;
  for (let attempt = 0; ; attempt++) {
    const headers: Record<string, string> = {};
    if (have > 0) {
      headers.range = `bytes=${have}-`;
      const validator = meta?.etag ?? meta?.lastModified;
      // If-Range: a file that changed on the server comes back whole (200), never spliced.
      if (validator) headers['if-range'] = validator;
    }
    const r = await httpGet(o.url, { ...o.http, headers: { ...o.http?.headers, ...headers } });
    requests += r.requests;
    const status = r.res.statusCode ?? 0;
    let start: number;
    if (status === 206 && have > 0) {
      const cr = parseContentRange(r.res.headers['content-range']);
      if (!cr || cr.start !== have || cr.total === null || cr.end !== cr.total - 1) {
        r.res.destroy();
        throw new HttpError(`${where}: bad Content-Range '${r.res.headers['content-range'] ?? ''}' for a resume at byte ${have}`, 'protocol', status);
      }
      start = have;
      total = cr.total;
    } else if (status === 200) {
      // A fresh download, or a resume the server refused (no range support, or the file changed).
      start = 0;
      const len = Number(r.res.headers['content-length']);
      total = Number.isSafeInteger(len) && len >= 0 ? len : null;
      if (have > 0) hash = createHash('sha256');
      have = 0;
    } else if (status === 416 && have > 0 && total === have) {
      r.res.destroy();
      start = have;
    } else {
      throw statusError(r, 'downloading');
    }
    expected ??= publishedSha256(r.hops);
    meta = { url: o.url, etag: (r.res.headers.etag as string | undefined) ?? null, lastModified: (r.res.headers['last-modified'] as string | undefined) ?? null, total };
    if (total !== null) {
      const need = total - start;
      const free = await freeBytes(dirname(o.dest));
      if (free < need) {
        r.res.destroy();
        throw new DownloadError(`not enough free space in ${dirname(o.dest)}: ${need} bytes to write, ${free} free`, 'space');
      }
    }
    await writeFile(metaPath, JSON.stringify(meta) + '\n');
    const fh = await open(part, start === 0 ? 'w' : 'r+');
    let pos = start;
    let failure: Error | null = null;
    try {
      if (status !== 416) {
        ({ pos, failure } = await drainBody(r.res, fh, start, (b, at) => {
          sessionBytes += b.length;
          hash.update(b);
          o.onProgress?.({ done: at, total, sessionBytes, resumedFrom });
        }));
      }
    } finally {
      await fh.close();
    }
    have = pos;
    if (failure === null && total !== null && pos < total) failure = new Error(`the server closed the connection at byte ${pos} of ${total}`);
    if (failure !== null) {
      if (attempt < retries) {
        await new Promise((res) => setTimeout(res, (o.retryDelayMs ?? 1000) * 2 ** attempt));
        continue;
      }
      throw new DownloadError(`download interrupted at ${pos} of ${total ?? '?'} bytes (${failure.message}); ${part} is kept: run the same command again to resume`, 'interrupted');
    }
    break;
  }
  if (total !== null && have !== total) throw new DownloadError(`${where}: got ${have} bytes, the server announced ${total}`, 'size');
  const sha256 = hash.digest('hex');
  if (expected && expected.sha256 !== sha256) {
    await rm(part, { force: true });
    await rm(metaPath, { force: true });
    throw new DownloadError(`sha256 mismatch for ${urlFileName(o.url)}: expected ${expected.sha256} (${expected.from}), got ${sha256}; the download was removed`, 'checksum');
  }
  await rename(part, o.dest);
  await rm(metaPath, { force: true });
  return { path: o.dest, bytes: have, sha256, verifiedAgainst: expected, resumedFrom, requests };
}
