// Test clients for the browser-mode server: plain HTTP, the login exchange, the API's
// WebSocket, and raw bytes over a TCP socket (for requests no well-behaved client would send).
import { request } from 'node:http';
import { connect } from 'node:net';
import { WebSocket } from 'ws';

export interface HttpAnswer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

export function http(port: number, path: string, opts: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: { host: `127.0.0.1:${port}`, ...opts.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

export const originOf = (port: number): string => `http://127.0.0.1:${port}`;

/** POST /login with the code of a login URL, as the page does. */
export function exchange(port: number, code: string, origin = originOf(port)): Promise<HttpAnswer> {
  const body = JSON.stringify({ code });
  return http(port, '/login', { method: 'POST', body, headers: { origin, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } });
}

export function codeOf(url: string): string {
  return new URL(url).searchParams.get('code') ?? '';
}

/** Logs in with a login URL's code; answers the credential. */
export async function login(port: number, url: string): Promise<string> {
  const r = await exchange(port, codeOf(url));
  if (r.status !== 200) throw new Error(`login failed: HTTP ${r.status} ${r.body}`);
  return (JSON.parse(r.body) as { credential: string }).credential;
}

export type TestSocket = WebSocket & { early: unknown[] };

/** Opens the API socket; `credential` travels in the subprotocol list as the page sends it. */
export function openWs(port: number, o: { credential?: string; origin?: string; headers?: Record<string, string>; protocols?: string[] } = {}): Promise<TestSocket> {
  const protocols = o.protocols ?? ['ramforge.v1', ...(o.credential ? [`ramforge.auth.${o.credential}`] : [])];
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api`, protocols, { headers: { origin: o.origin ?? originOf(port), ...o.headers } }) as TestSocket;
    ws.early = [];
    ws.on('message', (d) => ws.early.push(JSON.parse(d.toString())));
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_r, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
}

export interface RawAnswer {
  /** Status of the first HTTP response line, or null when none came. */
  status: number | null;
  /** The server closed the connection (rather than the timeout ending the wait). */
  closed: boolean;
  text: string;
}

/** Writes bytes on a fresh TCP connection and reads until the server closes it or `waitMs` passes. */
export function raw(port: number, bytes: Buffer | string | (Buffer | string)[], waitMs = 500): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closed = false;
    const finish = (): void => {
      clearTimeout(timer);
      s.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : null, closed, text });
    };
    const timer = setTimeout(finish, waitMs);
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('error', () => {});
    s.on('close', () => {
      closed = true;
      finish();
    });
    s.on('connect', () => {
      for (const b of Array.isArray(bytes) ? bytes : [bytes]) s.write(b);
    });
  });
}
