// Browser mode: the built renderer served on 127.0.0.1 and the app API over a local WebSocket,
// so the same UI runs in any browser where no Electron binary or display exists.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { AppService } from '../app/service.js';
import { contentSecurityPolicy, cookieName, hostAllowed, originAllowed, tokenAllowed } from './access.js';
import { contentType, resolveStatic } from './static-files.js';
import { receiveUpload, UploadError, type UploadLimits } from './upload.js';
import { attachApi } from './ws-api.js';

export interface ServerOptions {
  service: AppService;
  /** The built renderer (out/renderer). */
  rendererDir: string;
  /** Where uploaded models go (dataRoot()/models/uploads). */
  uploadDir: string;
  port?: number;
  uploadLimits?: Partial<UploadLimits>;
  /** Fixed access token (tests); random by default. */
  token?: string;
}

export interface RunningServer {
  port: number;
  /** The URL to open: carries the access token. */
  url: string;
  close(): Promise<void>;
}

const MAX_WS_MESSAGE = 16 * 1024 * 1024;

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

const NEED_TOKEN_PAGE = `<!doctype html><meta charset="utf-8"><title>RAMforge</title>
<p>Open the address printed by <code>ramforge serve</code> (it carries this server's access token).</p>`;

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  const token = opts.token ?? randomBytes(18).toString('base64url');
  const limits: UploadLimits = { maxBytes: 64 * 1024 ** 3, reserveBytes: 512 * 1024 ** 2, ...opts.uploadLimits };
  let port = 0;

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) json(res, 500, { error: (e as Error).message });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostAllowed(req, port)) return json(res, 421, { error: 'wrong Host header' });
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    const common = {
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-resource-policy': 'same-origin',
    };

    if (url.pathname === '/upload') {
      if (req.method !== 'PUT' && req.method !== 'POST') return json(res, 405, { error: 'use PUT' });
      if (!originAllowed(req, port, false) || !tokenAllowed(req, port, token)) return json(res, 403, { error: 'forbidden' });
      try {
        const path = await receiveUpload(req, opts.uploadDir, url.searchParams.get('name') ?? 'upload.gguf', limits);
        return json(res, 200, { path });
      } catch (e) {
        if (e instanceof UploadError) {
          res.setHeader('connection', 'close');
          return json(res, e.status, { error: e.message });
        }
        throw e;
      }
    }

    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { error: 'method not allowed' });
    const file = resolveStatic(opts.rendererDir, url.pathname);
    if (!file) return json(res, 404, { error: 'not found' });
    const isHtml = file.endsWith('.html');
    const headers: Record<string, string> = { ...common, 'content-type': contentType(file) };
    if (isHtml) {
      headers['content-security-policy'] = contentSecurityPolicy(port);
      headers['cache-control'] = 'no-store';
      const given = url.searchParams.get('token');
      if (given === token) {
        headers['set-cookie'] = `${cookieName(port)}=${token}; Path=/; HttpOnly; SameSite=Strict`;
      } else if (!tokenAllowed(req, port, token)) {
        res.writeHead(403, { ...headers, 'content-type': 'text/html; charset=utf-8' });
        return void res.end(NEED_TOKEN_PAGE);
      }
    }
    let body: Buffer;
    try {
      if (!(await stat(file)).isFile()) throw new Error('not a file');
      body = await readFile(file);
    } catch {
      if (isHtml) {
        res.writeHead(503, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
        return void res.end(`The renderer is not built (${opts.rendererDir} has no index.html). Run: npm run build:app\n`);
      }
      return json(res, 404, { error: 'not found' });
    }
    res.writeHead(200, { ...headers, 'content-length': String(body.length) });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_WS_MESSAGE });
  attachApi(wss, opts.service);
  server.on('upgrade', (req, socket, head) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (path !== '/api' || !hostAllowed(req, port) || !originAllowed(req, port, true) || !tokenAllowed(req, port, token)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;

  return {
    port,
    url: `http://127.0.0.1:${port}/?token=${token}`,
    close: async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
