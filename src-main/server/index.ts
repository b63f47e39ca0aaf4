// Browser mode: the built renderer served on 127.0.0.1 and the app API over a local WebSocket,
// so the same UI runs in any browser where no Electron binary or display exists.
//
// Every listener here (request, upgrade, WebSocket message) catches what it calls: one bad
// request from anyone on the machine must never end the server.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { AppService } from '../app/service.js';
import { LOGIN_CODE_PARAM, WS_PROTOCOL } from '../shared/browser-auth.js';
import { handleRequest, json, type RouteContext } from './http-routes.js';
import { AccessKeys } from './login.js';
import { DEFAULT_UPLOAD_LIMITS, UploadStore, type UploadLimits } from './upload.js';
import { upgradeListener } from './upgrade.js';
import { attachApi } from './ws-api.js';

export interface ServerOptions {
  service: AppService;
  /** The built renderer (out/renderer). */
  rendererDir: string;
  /** Where uploaded models go (dataRoot()/models/uploads). */
  uploadDir: string;
  port?: number;
  uploadLimits?: Partial<UploadLimits>;
  /** How long a login code is valid (ms); 5 minutes by default. */
  codeTtlMs?: number;
}

export interface RunningServer {
  port: number;
  /** The URL to open: carries a one-time login code. */
  url: string;
  /** A URL with a fresh one-time login code (for another tab, or after the first expired). */
  loginUrl(ttlMs?: number): string;
  /** `.part` files of dead servers removed at start. */
  sweptParts: number;
  close(): Promise<void>;
}

const MAX_WS_MESSAGE = 16 * 1024 * 1024;

/**
 * After listen, a server 'error' (accept failing with EMFILE when a flood of connections has
 * used up the fds) has no listener and would end the process: it is logged, a few times, and
 * the server goes on accepting once fds are free again.
 */
export function keepServing(server: Server, log: (line: string) => void = (l) => void process.stderr.write(l + '\n')): void {
  let logged = 0;
  server.on('error', (e: Error) => {
    if (logged++ < 5) log(`ramforge serve: ${e.message}`);
  });
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  let port = 0;
  const keys = new AccessKeys(opts.codeTtlMs !== undefined ? { codeTtlMs: opts.codeTtlMs } : {});
  const uploads = new UploadStore(opts.uploadDir, { ...DEFAULT_UPLOAD_LIMITS, ...opts.uploadLimits });
  const sweptParts = await uploads.sweep();
  // A dropped file is loaded only once it has arrived whole.
  opts.service.guardWrites((p) => uploads.isBeingWritten(p));
  const ctx: RouteContext = { port: () => port, keys, uploads, rendererDir: opts.rendererDir };

  const server = createServer((req, res) => {
    handleRequest(ctx, req, res).catch((e: unknown) => {
      try {
        if (!res.headersSent) json(res, 500, { error: (e as Error)?.message ?? String(e) }, { connection: 'close' });
        else res.destroy();
      } catch {
        res.destroy();
      }
    });
  });
  // Uploads of tens of GB take longer than Node's 5-minute default for a whole request; a
  // connection that sends nothing for 2 minutes is closed instead.
  server.requestTimeout = 0;
  server.setTimeout(120_000);

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_WS_MESSAGE,
    handleProtocols: (offered) => (offered.has(WS_PROTOCOL) ? WS_PROTOCOL : false),
  });
  attachApi(wss, opts.service);
  server.on('upgrade', upgradeListener(() => port, keys, wss));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  keepServing(server);
  const loginUrl = (ttlMs?: number): string => `http://127.0.0.1:${port}/?${LOGIN_CODE_PARAM}=${keys.newCode(ttlMs)}`;

  return {
    port,
    url: loginUrl(),
    loginUrl,
    sweptParts,
    close: async () => {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
