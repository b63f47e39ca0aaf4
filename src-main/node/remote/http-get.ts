// GET over http(s) with the bounds a download of untrusted size needs: redirects followed up to
// a limit (each hop counted), a timeout for every wait (connecting, the answer, each stretch of
// the body), no compression (byte ranges must mean file bytes), and every hop's headers kept
// (a checksum may come on the redirect, not on the final answer).
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { redactUrl } from '../../shared/remote/model-url.js';

export type HttpErrorKind = 'not-found' | 'status' | 'network' | 'timeout' | 'redirects' | 'no-range' | 'changed' | 'protocol' | 'interrupted';

export class HttpError extends Error {
  constructor(
    message: string,
    readonly kind: HttpErrorKind,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_REDIRECTS = 10;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export interface GetOptions {
  readonly headers?: Record<string, string>;
  /** Longest wait for a connection, an answer, or the next bytes of the body. */
  readonly timeoutMs?: number;
  readonly maxRedirects?: number;
  /** Called once per request sent (redirect hops included). */
  readonly onRequest?: (url: string) => void;
}

export interface GetResult {
  readonly res: IncomingMessage;
  /** The URL that answered (after redirects). */
  readonly url: string;
  /** Headers of every response, redirect hops first, the final one last. */
  readonly hops: IncomingHttpHeaders[];
  readonly requests: number;
}

function once(url: URL, headers: Record<string, string>, timeoutMs: number): Promise<{ req: ClientRequest; res: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const make = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = make(url, { method: 'GET', headers: { 'accept-encoding': 'identity', 'user-agent': 'ramforge', ...headers } });
    // Applies to the socket for the request's whole life: the body too, not only the answer.
    req.setTimeout(timeoutMs, () => req.destroy(new HttpError(`${redactUrl(url)}: no answer for ${Math.round(timeoutMs / 1000)} s (timed out)`, 'timeout')));
    req.once('error', (e) => reject(e instanceof HttpError ? e : new HttpError(`${redactUrl(url)}: ${(e as Error).message}`, 'network')));
    req.once('response', (res) => resolve({ req, res }));
    req.end();
  });
}

/** GET `url`, following redirects; resolves with the first non-redirect response (any status). */
export async function httpGet(url: string, opts: GetOptions = {}): Promise<GetResult> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const hops: IncomingHttpHeaders[] = [];
  let current = new URL(url);
  for (let requests = 1; ; requests++) {
    if (current.protocol !== 'http:' && current.protocol !== 'https:') throw new HttpError(`redirected to a ${current.protocol} URL, which is not followed`, 'protocol');
    opts.onRequest?.(current.href);
    const { res } = await once(current, opts.headers ?? {}, timeoutMs);
    hops.push(res.headers);
    const status = res.statusCode ?? 0;
    if (REDIRECTS.has(status) && res.headers.location) {
      res.resume();
      if (requests > maxRedirects) throw new HttpError(`${redactUrl(url)}: more than ${maxRedirects} redirects`, 'redirects', status);
      const next = new URL(res.headers.location, current);
      // Never from https down to plain http: the bytes (and a checksum on the way) could be altered.
      if (current.protocol === 'https:' && next.protocol === 'http:') throw new HttpError(`${redactUrl(current)}: redirected from https to plain http (${redactUrl(next)}); not followed`, 'protocol', status);
      current = next;
      continue;
    }
    const enc = res.headers['content-encoding'];
    if (enc && enc.toLowerCase() !== 'identity') {
      res.destroy();
      throw new HttpError(`${redactUrl(current)}: the server compressed the answer (${enc}) though asked not to`, 'protocol', status);
    }
    return { res, url: current.href, hops, requests };
  }
}

/** An error for a status that is neither the one expected nor a redirect; the body is dropped. */
export function statusError(r: GetResult, what: string): HttpError {
  const status = r.res.statusCode ?? 0;
  r.res.destroy();
  const where = redactUrl(r.url);
  if (status === 404 || status === 410) return new HttpError(`${where}: not found (HTTP ${status})`, 'not-found', status);
  if (status === 401 || status === 403) return new HttpError(`${where}: access denied (HTTP ${status}); the file may need a login or a token`, 'status', status);
  return new HttpError(`${where}: HTTP ${status} ${r.res.statusMessage ?? ''} while ${what}`.replace(/\s+while/, ' while'), 'status', status);
}

/** The whole body, refusing more than `maxBytes` (the server sent more than it was asked for). */
export function readBody(res: IncomingMessage, maxBytes: number, where: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let n = 0;
    let done = false;
    const fail = (e: Error): void => {
      if (done) return;
      done = true;
      res.destroy();
      reject(e);
    };
    res.on('data', (b: Buffer) => {
      n += b.length;
      if (n > maxBytes) return fail(new HttpError(`${where}: the server sent more than the ${maxBytes} bytes asked for`, 'protocol'));
      chunks.push(b);
    });
    res.once('error', (e) => fail(e instanceof HttpError ? e : new HttpError(`${where}: ${e.message}`, 'interrupted')));
    res.once('aborted', () => fail(new HttpError(`${where}: the connection closed after ${n} bytes`, 'interrupted')));
    res.once('end', () => {
      if (done) return;
      done = true;
      resolve(Buffer.concat(chunks, n));
    });
  });
}
