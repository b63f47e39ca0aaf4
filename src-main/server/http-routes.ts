// The HTTP side of browser mode: the built renderer (public: it is the app's code, no data),
// POST /login (a one-time code for a credential) and PUT /upload (needs the credential).
// Checks come first and nothing here parses a request target with a parser that can throw:
// a malformed request gets a 4xx.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { bearerCredential, contentSecurityPolicy, hostAllowed, originAllowed, targetPath } from './access.js';
import { LOGIN_PATH } from '../shared/browser-auth.js';
import type { AccessKeys } from './login.js';
import { BodyError, readSmallBody } from './small-body.js';
import { contentType, resolveStatic } from './static-files.js';
import { UploadError, type UploadStore } from './upload.js';

export interface RouteContext {
  port(): number;
  keys: AccessKeys;
  uploads: UploadStore;
  rendererDir: string;
}

const COMMON_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

export function json(res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...COMMON_HEADERS, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...extra });
  res.end(JSON.stringify(body));
}

function queryOf(raw: string): URLSearchParams {
  const q = raw.indexOf('?');
  // URLSearchParams never throws: malformed escapes stay as they are.
  return new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
}

export async function handleRequest(ctx: RouteContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!hostAllowed(req, ctx.port())) return json(res, 421, { error: 'wrong Host header' });
  const path = targetPath(req.url);
  if (path === null) return json(res, 400, { error: 'malformed request target' });
  if (path === LOGIN_PATH) return login(ctx, req, res);
  if (path === '/upload') return upload(ctx, req, res, queryOf(req.url as string).get('name') ?? 'upload.gguf');
  if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { error: 'method not allowed' });
  return staticFile(ctx, req, res, path);
}

const LOGIN_FAILED =
  'this login address was already used or has expired: press Enter in the terminal running `ramforge serve` for a new one';

async function login(ctx: RouteContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const close = { connection: 'close' };
  if (req.method !== 'POST') return json(res, 405, { error: 'use POST' }, close);
  // Browsers send Origin on every POST; a page of another site or port is refused here.
  if (!originAllowed(req, ctx.port(), true)) return json(res, 403, { error: 'forbidden' }, close);
  let code: unknown = null;
  try {
    const body = JSON.parse(await readSmallBody(req, 1024)) as unknown;
    code = (body as { code?: unknown } | null)?.code;
  } catch (e) {
    if (e instanceof BodyError) return json(res, e.status, { error: e.message }, close);
    return json(res, 400, { error: 'the body must be JSON: {"code": "..."}' });
  }
  const credential = ctx.keys.exchange(code);
  if (credential === null) return json(res, 403, { error: LOGIN_FAILED });
  json(res, 200, { credential });
}

async function upload(ctx: RouteContext, req: IncomingMessage, res: ServerResponse, name: string): Promise<void> {
  // Every answer but success closes the connection: the body may still be on its way.
  const close = { connection: 'close' };
  if (req.method !== 'PUT' && req.method !== 'POST') return json(res, 405, { error: 'use PUT' }, close);
  if (!originAllowed(req, ctx.port(), false) || !ctx.keys.allows(bearerCredential(req))) return json(res, 403, { error: 'forbidden' }, close);
  try {
    const path = await ctx.uploads.receive(req, name);
    json(res, 200, { path });
  } catch (e) {
    if (!(e instanceof UploadError)) throw e;
    json(res, e.status, { error: e.message }, close);
  }
}

async function staticFile(ctx: RouteContext, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  const file = resolveStatic(ctx.rendererDir, path);
  if (!file) return json(res, 404, { error: 'not found' });
  const isHtml = file.endsWith('.html');
  const headers: Record<string, string> = { ...COMMON_HEADERS, 'content-type': contentType(file) };
  if (isHtml) {
    headers['content-security-policy'] = contentSecurityPolicy(ctx.port());
    headers['cache-control'] = 'no-store';
  }
  let body: Buffer;
  try {
    if (!(await stat(file)).isFile()) throw new Error('not a file');
    body = await readFile(file);
  } catch {
    if (file === join(resolve(ctx.rendererDir), 'index.html')) {
      res.writeHead(503, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
      return void res.end(`The renderer is not built (${ctx.rendererDir} has no index.html). Run: npm run build:app\n`);
    }
    return json(res, 404, { error: 'not found' });
  }
  res.writeHead(200, { ...headers, 'content-length': String(body.length) });
  res.end(req.method === 'HEAD' ? undefined : body);
}
