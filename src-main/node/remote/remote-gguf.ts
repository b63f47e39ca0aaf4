// A remote GGUF's header, read with HTTP range requests into a growing buffer until the
// hardened reader (the same one local files go through) has what it needs. The tensor data is
// never requested: the bytes read are at most the header's plus one range step of slack.
// Split sets are found by the URL pattern (`-00001-of-00003.gguf`): every shard's header.
import { GgufError, GgufNeedMoreBytes, parseGgufHeader, type GgufHeader, type ParseOptions } from '../../shared/gguf/reader.js';
import type { GgufShard } from '../../shared/gguf/model-view.js';
import { kvInteger } from '../../shared/gguf/metadata.js';
import { parseContentRange, unsatisfiedRangeTotal } from '../../shared/remote/http-headers.js';
import { redactUrl, splitSetUrls } from '../../shared/remote/model-url.js';
import { assembleModel, type OpenedModel } from '../gguf-file.js';
import { HttpError, httpGet, readBody, statusError, type GetOptions } from './http-get.js';

/** Size of each range request: the slack the header read may overshoot by. */
export const RANGE_STEP_BYTES = 1024 * 1024;
/** The largest header region read from a server (a real one, vocabulary included, is a few MiB). */
export const MAX_REMOTE_HEADER_BYTES = 64 * 1024 * 1024;

export interface RemoteReadOptions {
  readonly parse?: ParseOptions;
  readonly maxHeaderBytes?: number;
  readonly stepBytes?: number;
  readonly http?: GetOptions;
}

export interface RemoteHeaderResult {
  readonly header: GgufHeader;
  /** Body bytes received. */
  readonly bytesRead: number;
  /** HTTP requests sent, redirect hops included. */
  readonly requests: number;
  readonly fileSize: number;
}

export interface RemoteModel extends OpenedModel {
  readonly requests: number;
}

interface Part {
  bytes: Buffer;
  total: number;
  etag: string | null;
  url: string;
  requests: number;
}

async function fetchRange(url: string, start: number, end: number, http: GetOptions | undefined): Promise<Part> {
  const r = await httpGet(url, { ...http, headers: { ...http?.headers, range: `bytes=${start}-${end}` } });
  const where = redactUrl(r.url);
  const status = r.res.statusCode ?? 0;
  if (status === 200) {
    r.res.destroy();
    const len = r.res.headers['content-length'];
    throw new HttpError(
      `${where}: the server does not support range requests (it answered a request for bytes ${start}-${end} with the whole file${len ? `, ${len} bytes,` : ''} as HTTP 200 instead of 206). ` +
        'Reading the header would mean downloading the model; download it first (ramforge pull) and plan the local file',
      'no-range',
      status,
    );
  }
  if (status === 416) {
    const total = unsatisfiedRangeTotal(r.res.headers['content-range']);
    r.res.destroy();
    if (total !== null && total <= start) throw new GgufError('TRUNCATED', `file is truncated: the server says it holds ${total} bytes, the header needs more`, total, where);
    throw new HttpError(`${where}: the server refused the range ${start}-${end} (HTTP 416)`, 'protocol', status);
  }
  if (status !== 206) throw statusError(r, `reading bytes ${start}-${end}`);
  const cr = parseContentRange(r.res.headers['content-range']);
  if (!cr || cr.start !== start || cr.end > end || cr.total === null) {
    r.res.destroy();
    throw new HttpError(`${where}: bad Content-Range '${r.res.headers['content-range'] ?? ''}' for a request of bytes ${start}-${end}`, 'protocol', status);
  }
  const bytes = await readBody(r.res, end - start + 1, where);
  if (bytes.length !== cr.end - cr.start + 1) throw new HttpError(`${where}: the connection closed after ${bytes.length} of ${cr.end - cr.start + 1} bytes`, 'interrupted', status);
  const etag = r.res.headers.etag ?? null;
  return { bytes, total: cr.total, etag: etag && !etag.startsWith('W/') ? etag : null, url: r.url, requests: r.requests };
}

/** Reads and parses one remote file's header. Throws GgufError (labelled with the URL) or HttpError. */
export async function readRemoteHeader(url: string, opts: RemoteReadOptions = {}): Promise<RemoteHeaderResult> {
  const cap = opts.maxHeaderBytes ?? MAX_REMOTE_HEADER_BYTES;
  const step = opts.stepBytes ?? RANGE_STEP_BYTES;
  const label = redactUrl(url);
  let target = url;
  let buf: Buffer = Buffer.alloc(0);
  let size: number | null = null;
  let etag: string | null = null;
  let requests = 0;
  let want = Math.min(step, cap);
  for (;;) {
    const end = (size === null ? want : Math.min(want, size)) - 1;
    const part = await fetchRange(target, buf.length, end, opts.http);
    requests += part.requests;
    if (size === null) {
      size = part.total;
      etag = part.etag;
      // Later ranges go straight to where the redirects led.
      target = part.url;
    } else if (part.total !== size || (etag !== null && part.etag !== null && part.etag !== etag)) {
      throw new HttpError(`${label}: the file changed on the server while its header was read`, 'changed');
    }
    buf = Buffer.concat([buf, part.bytes]);
    try {
      const header = parseGgufHeader(buf, size, opts.parse);
      return { header, bytesRead: buf.length, requests, fileSize: size };
    } catch (e) {
      if (!(e instanceof GgufNeedMoreBytes)) throw e instanceof GgufError ? e.withFile(label) : e;
      if (e.needed > cap) throw new GgufError('HEADER_TOO_LARGE', `header region needs more than ${cap} bytes; refusing to read it`, buf.length, label);
      want = Math.min(cap, Math.max(e.needed, buf.length + step));
    }
  }
}

/** Opens a remote model (one file or a whole split set) from its headers alone. */
export async function openRemoteModel(url: string, opts: RemoteReadOptions = {}): Promise<RemoteModel> {
  const urls = splitSetUrls(url);
  const shards: GgufShard[] = [];
  let bytesRead = 0;
  let requests = 0;
  for (const [i, u] of urls.entries()) {
    const r = await readRemoteHeader(u, opts);
    bytesRead += r.bytesRead;
    requests += r.requests;
    shards.push({ path: u, header: r.header });
    // Shard 1 says how many shards there are: check before asking the server for the others.
    const count = i === 0 ? kvInteger(r.header, 'split.count') : undefined;
    if (i === 0 && urls.length > 1 && count !== urls.length) {
      throw new GgufError('SPLIT', `${redactUrl(u)}: the URL names a ${urls.length}-file split set but split.count is ${count ?? 'missing'}`, null);
    }
  }
  return { ...assembleModel(url, shards, bytesRead), requests };
}
