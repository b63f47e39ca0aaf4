// Who may call the API. On loopback (the default) the Host header must name this machine, so a
// web page that rebinds its own name to 127.0.0.1 is refused, and a browser page of another
// site (an Origin that is not this machine, nor one `--cors` names) is refused too. With --api-key every /v1 request
// must carry `Authorization: Bearer KEY`, compared in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { originAllowed } from './cors.js';
import { ApiError } from './errors.js';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

export function isLoopbackHost(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function loopbackAuthority(v: string, port: number): boolean {
  return LOOPBACK_NAMES.some((n) => v === `${n}:${port}` || (port === 80 && v === n));
}

/** A 403 when a loopback server is reached under another name or from another site's page (one `--cors` does not let in); else null. */
export function accessProblem(req: IncomingMessage, port: number, loopback: boolean, corsOrigins: readonly string[] = []): ApiError | null {
  if (!loopback) return null;
  const host = String(req.headers.host ?? '').toLowerCase();
  if (!loopbackAuthority(host, port)) {
    return new ApiError(403, 'permission_error', `this server answers only to 127.0.0.1:${port} or localhost:${port} (Host was ${JSON.stringify(host.slice(0, 100))})`, 'forbidden_host');
  }
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== 'null' && !originAllowed(origin, corsOrigins)) {
    let ok = false;
    try {
      const u = new URL(origin);
      ok = (u.protocol === 'http:' || u.protocol === 'https:') && LOOPBACK_NAMES.includes(u.hostname.toLowerCase());
    } catch {
      ok = false;
    }
    if (!ok) return new ApiError(403, 'permission_error', 'requests from web pages of other sites are refused', 'forbidden_origin');
  }
  return null;
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** A checker for `Authorization: Bearer KEY` (or Anthropic's `x-api-key: KEY`); a 401 ApiError when the key is missing or wrong, else null. */
export function bearerCheck(apiKey: string | null): (req: IncomingMessage) => ApiError | null {
  if (apiKey === null) return () => null;
  // Equal-length digests: the comparison takes the same time whatever the client sent.
  const want = digest(apiKey);
  return (req) => {
    const h = req.headers.authorization;
    const m = typeof h === 'string' ? /^Bearer[ ]+(\S{1,1024})\s*$/i.exec(h) : null;
    // Anthropic's clients send the key as x-api-key.
    const x = req.headers['x-api-key'];
    const key = m ? (m[1] as string) : typeof x === 'string' && x.length > 0 && x.length <= 1024 ? x : null;
    if (key === null) return new ApiError(401, 'authentication_error', 'this server needs an API key: send the header Authorization: Bearer <key> (or x-api-key: <key>)', 'invalid_api_key');
    if (!timingSafeEqual(digest(key), want)) return new ApiError(401, 'authentication_error', 'incorrect API key provided', 'invalid_api_key');
    return null;
  };
}
