import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { WebSocket } from 'ws';
import { AppService } from '../app/service.js';
import { FakeHost } from '../app/fake-host.test-util.js';
import { startServer, type RunningServer } from './index.js';
import { sanitizeUploadName } from './upload.js';
import { resolveStatic } from './static-files.js';

let dir: string;
let srv: RunningServer;
const TOKEN = 'test-token-123';

function http(path: string, opts: { method?: string; headers?: Record<string, string>; body?: Buffer } = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: srv.port, path, method: opts.method ?? 'GET', headers: { host: `127.0.0.1:${srv.port}`, ...opts.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const cookie = (): string => `ramforge_token_${srv.port}=${TOKEN}`;

function openWs(headers: Record<string, string>): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${srv.port}/api`, { headers });
    const early: unknown[] = [];
    ws.on('message', (d) => early.push(JSON.parse(d.toString())));
    (ws as WebSocket & { early: unknown[] }).early = early;
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_r, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-srv-'));
  await mkdir(join(dir, 'renderer', 'assets'), { recursive: true });
  await writeFile(join(dir, 'renderer', 'index.html'), '<!doctype html><title>x</title>');
  await writeFile(join(dir, 'renderer', 'assets', 'a.js'), 'console.log(1)');
  await writeFile(join(dir, 'secret.txt'), 'secret');
  const service = new AppService({
    dataDir: join(dir, 'data'),
    hostFactory: async (o) => new FakeHost(o),
    inspectModel: async (p) => {
      if (p.endsWith('bad.gguf')) throw new Error('bad magic 0x00000000 at offset 0');
      return { path: p, layers: [] };
    },
  });
  srv = await startServer({ service, rendererDir: join(dir, 'renderer'), uploadDir: join(dir, 'uploads'), port: 0, token: TOKEN, uploadLimits: { maxBytes: 1024, reserveBytes: 0 } });
});

afterAll(async () => {
  await srv.close();
  await rm(dir, { recursive: true, force: true });
});

describe('browser-mode server', () => {
  it('listens on 127.0.0.1 and prints a URL with the token', () => {
    expect(srv.url).toBe(`http://127.0.0.1:${srv.port}/?token=${TOKEN}`);
  });

  it('serves the app only with the token, with a strict CSP and a SameSite cookie', async () => {
    const without = await http('/');
    expect(without.status).toBe(403);
    const withTok = await http(`/?token=${TOKEN}`);
    expect(withTok.status).toBe(200);
    expect(String(withTok.headers['content-security-policy'])).toMatch(/script-src 'self'(;|$)/);
    expect(String(withTok.headers['content-security-policy'])).toContain("object-src 'none'");
    expect(String(withTok.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
    expect((await http('/assets/a.js')).body).toBe('console.log(1)');
  });

  it('refuses foreign Host headers and paths outside the renderer folder', async () => {
    expect((await http(`/?token=${TOKEN}`, { headers: { host: 'evil.example:80' } })).status).toBe(421);
    expect((await http('/..%2fsecret.txt')).status).toBe(404);
    // '..' is clamped at the root: it can only ever name files inside the renderer folder.
    expect(resolveStatic('/r', '/%2e%2e/%2e%2e/secret.txt')).toBe(join('/r', 'secret.txt'));
    expect(resolveStatic('/r', '/a%00b.js')).toBeNull();
    expect(resolveStatic('/r', '/%E0%A4%A.js')).toBeNull();
    expect(resolveStatic('/r', '/chat')).toBe(join('/r', 'index.html'));
  });

  it('speaks the WIRE.md protocol: state on connect, calls, errors with the reader message', async () => {
    await expect(openWs({ origin: `http://127.0.0.1:${srv.port}` })).rejects.toThrow(/403/);
    await expect(openWs({ origin: 'http://evil.example', cookie: cookie() })).rejects.toThrow(/403/);
    const ws = await openWs({ origin: `http://127.0.0.1:${srv.port}`, cookie: cookie() });
    // Every message, including any that arrived with the handshake.
    const msgs = (ws as WebSocket & { early: { id?: number; result?: unknown; error?: { message: string }; event?: { type: string } }[] }).early;
    const call = (id: number, method: string, params: unknown[]): Promise<(typeof msgs)[number]> => {
      ws.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve) => {
        const t = setInterval(() => {
          const m = msgs.find((x) => x.id === id);
          if (m) (clearInterval(t), resolve(m));
        }, 5);
      });
    };
    expect((await call(1, 'getState', [])).result).toMatchObject({ status: 'idle' });
    expect(msgs[0]?.event?.type).toBe('state');
    expect((await call(2, 'inspect', ['/x/bad.gguf'])).error?.message).toBe('bad magic 0x00000000 at offset 0');
    expect((await call(3, 'onEvent', [])).error?.message).toMatch(/unknown method/);
    expect((await call(4, 'constructor', [])).error?.message).toMatch(/unknown method/);
    expect((await call(5, 'inspectUpload', ['m.gguf', 3, Buffer.from('abc').toString('base64')])).result).toMatchObject({ layers: [] });
    await call(6, 'load', ['/m/a.gguf', null]);
    await call(7, 'generate', ['g', [{ role: 'user', content: 'hi' }], {}, 3]);
    await new Promise<void>((r) => {
      const t = setInterval(() => msgs.some((m) => m.event?.type === 'generation-done') && (clearInterval(t), r()), 5);
    });
    expect(msgs.filter((m) => m.event?.type === 'token').length).toBe(3);
    ws.close();
  });

  it('stores uploads under a sanitised name, bounded in size', async () => {
    const put = (name: string, body: Buffer, headers: Record<string, string> = {}) =>
      http(`/upload?name=${encodeURIComponent(name)}`, { method: 'PUT', body, headers: { cookie: cookie(), 'content-length': String(body.length), ...headers } });
    expect((await http('/upload?name=a', { method: 'PUT', body: Buffer.from('x'), headers: { 'content-length': '1' } })).status).toBe(403);
    const ok = await put('../../evil name.gguf', Buffer.from('GGUF-bytes'));
    expect(ok.status).toBe(200);
    const path = JSON.parse(ok.body).path as string;
    expect(path).toBe(join(dir, 'uploads', 'evil_name.gguf'));
    expect(await readFile(path, 'utf8')).toBe('GGUF-bytes');
    const big = await put('big.gguf', Buffer.alloc(2048));
    expect(big.status).toBe(413);
    expect((await readdir(join(dir, 'uploads'))).sort()).toEqual(['evil_name.gguf']);
  });

  it('sanitises names', () => {
    expect(sanitizeUploadName('C:\\Users\\me\\model.gguf')).toBe('model.gguf');
    expect(sanitizeUploadName('.hidden')).toBe('hidden');
    expect(sanitizeUploadName('..')).toBe('upload.gguf');
    expect(sanitizeUploadName('a'.repeat(300) + '.gguf')).toMatch(/^a{115}\.gguf$/);
  });
});
