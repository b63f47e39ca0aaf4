// Cross-origin access, opt-in (`--cors ORIGIN,...`; none by default): a browser front-end served
// from a listed origin may call the API, its preflight (OPTIONS) is answered, and its answers
// carry Access-Control-Allow-Origin. `*` allows every origin and never with credentials (the
// CORS rule that keeps a user's cookies out of other sites' requests); a listed origin is echoed
// with credentials allowed. The API key, when set, is still required on every request but the
// preflight (browsers send no Authorization there). Pure.

export const MAX_CORS_ORIGINS = 32;

/** `--cors`'s value: `*`, or origins (`https://app.example`, `http://localhost:3000`) separated by commas. */
export function parseCorsOrigins(text: string): string[] {
  const list = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (list.length === 0) throw new Error('--cors needs * or at least one origin (https://host[:port])');
  if (list.length > MAX_CORS_ORIGINS) throw new Error(`--cors takes at most ${MAX_CORS_ORIGINS} origins`);
  return list.map((o) => {
    if (o === '*') return o;
    let u: URL;
    try {
      u = new URL(o);
    } catch {
      throw new Error(`--cors: '${o.slice(0, 100)}' is not an origin (https://host[:port])`);
    }
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.origin !== o.replace(/\/$/, '').toLowerCase() || u.username || u.password) {
      throw new Error(`--cors: '${o.slice(0, 100)}' is not an origin: give the scheme, host and port only (https://host[:port])`);
    }
    return u.origin;
  });
}

/** Whether a request's Origin header is one the server lets in. */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (origin === undefined || origin === 'null') return false;
  return allowed.includes('*') || allowed.includes(origin.toLowerCase());
}

/** Headers every answer to an allowed origin carries (none otherwise). */
export function corsHeaders(origin: string | undefined, allowed: readonly string[], exposed: readonly string[]): Record<string, string> {
  if (!originAllowed(origin, allowed)) return allowed.length > 0 ? { vary: 'Origin' } : {};
  const named = allowed.includes(origin?.toLowerCase() ?? '');
  return {
    'access-control-allow-origin': named ? (origin as string) : '*',
    ...(named ? { 'access-control-allow-credentials': 'true' } : {}),
    'access-control-expose-headers': exposed.join(', '),
    vary: 'Origin',
  };
}

const HEADER_LIST = /^[A-Za-z0-9-]+(\s*,\s*[A-Za-z0-9-]+){0,31}$/;

/** A preflight's answer headers: the route's methods, the headers asked for (when well-formed), a 10-minute cache. */
export function preflightHeaders(origin: string | undefined, allowed: readonly string[], exposed: readonly string[], methods: readonly string[], requested: string | undefined): Record<string, string> {
  const base = corsHeaders(origin, allowed, exposed);
  if (!('access-control-allow-origin' in base)) return base;
  const asked = requested !== undefined && HEADER_LIST.test(requested.trim()) ? requested.trim() : 'authorization, content-type';
  return { ...base, 'access-control-allow-methods': [...methods, 'OPTIONS'].join(', '), 'access-control-allow-headers': asked, 'access-control-max-age': '600' };
}
