import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { AppService } from '../app/service.js';
import { FakeHost, fakePrepare } from '../app/fake-host.test-util.js';
import { createServer } from 'node:http';
import { keepServing, startServer, type RunningServer } from './index.js';
import { sanitizeUploadName } from './upload.js';
import { resolveStatic } from './static-files.js';
import { codeOf, exchange, http as httpTo, login, openWs as openWsTo, originOf, raw } from './test-client.test-util.js';

let dir: string;
let srv: RunningServer;
let credential: string;

const http = (path: string, opts: Parameters<typeof httpTo>[2] = {}) => httpTo(srv.port, path, opts);
const openWs = (o: Parameters<typeof openWsTo>[1] = {}) => openWsTo(srv.port, o);

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
    // No CLI child for the fake model paths: the plan answer the service reads (no budget, no tiers).
    planModel: async () => ({}),
    prepareModel: fakePrepare(),
  });
  srv = await startServer({ service, rendererDir: join(dir, 'renderer'), uploadDir: join(dir, 'uploads'), port: 0, uploadLimits: { maxBytes: 1024, reserveBytes: 0 } });
  credential = await login(srv.port, srv.loginUrl());
});

afterAll(async () => {
  await srv.close();
  await rm(dir, { recursive: true, force: true });
});

describe('browser-mode server', () => {
  it('listens on 127.0.0.1 and prints a URL with a one-time login code, never a lasting secret', () => {
    expect(srv.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${srv.port}/\\?code=[A-Za-z0-9_-]{24}$`));
    expect(srv.loginUrl()).not.toBe(srv.url);
  });

  it('serves the renderer (public code) with a strict CSP and sets no cookie', async () => {
    const page = await http('/');
    expect(page.status).toBe(200);
    expect(String(page.headers['content-security-policy'])).toMatch(/script-src 'self'(;|$)/);
    expect(String(page.headers['content-security-policy'])).toContain("object-src 'none'");
    expect(page.headers['set-cookie']).toBeUndefined();
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect((await http(`/?code=${codeOf(srv.loginUrl())}`)).headers['set-cookie']).toBeUndefined();
    expect((await http('/assets/a.js')).body).toBe('console.log(1)');
  });

  it('trades a login code for a credential once; a spent, unknown or foreign-origin code gets nothing', async () => {
    const code = codeOf(srv.loginUrl());
    expect((await exchange(srv.port, code, 'http://evil.example')).status).toBe(403);
    expect((await exchange(srv.port, code, `http://127.0.0.1:${srv.port + 1}`)).status).toBe(403);
    const first = await exchange(srv.port, code);
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(first.body).credential).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = await exchange(srv.port, code);
    expect(again.status).toBe(403);
    expect(JSON.parse(again.body).error).toMatch(/already used or has expired/);
    expect((await exchange(srv.port, 'x'.repeat(24))).status).toBe(403);
    expect((await http('/login')).status).toBe(405);
    const big = 'x'.repeat(5000);
    expect((await http('/login', { method: 'POST', body: big, headers: { origin: originOf(srv.port), 'content-length': String(big.length) } })).status).toBe(413);
    expect((await http('/login', { method: 'POST', body: '{', headers: { origin: originOf(srv.port) } })).status).toBe(400);
  });

  it('refuses foreign Host headers and paths outside the renderer folder', async () => {
    expect((await http('/', { headers: { host: 'evil.example:80' } })).status).toBe(421);
    expect((await http('/..%2fsecret.txt')).status).toBe(404);
    // '..' is clamped at the root: it can only ever name files inside the renderer folder.
    expect(resolveStatic('/r', '/%2e%2e/%2e%2e/secret.txt')).toBe(join('/r', 'secret.txt'));
    expect(resolveStatic('/r', '/a%00b.js')).toBeNull();
    expect(resolveStatic('/r', '/%E0%A4%A.js')).toBeNull();
    expect(resolveStatic('/r', '/chat')).toBe(join('/r', 'index.html'));
  });

  it('survives upgrade requests whose target no URL parser takes (//, ///, //:99999): a 4xx, and the server stays up', async () => {
    for (const target of ['//', '///', '//:99999', '//a:b@c', 'http://[', '*', '\\api']) {
      for (const withCredential of [false, true]) {
        const lines = [
          `GET ${target} HTTP/1.1`,
          `Host: 127.0.0.1:${srv.port}`,
          'Upgrade: websocket',
          'Connection: Upgrade',
          'Sec-WebSocket-Version: 13',
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
          `Origin: ${originOf(srv.port)}`,
          ...(withCredential ? [`Sec-WebSocket-Protocol: ramforge.v1, ramforge.auth.${credential}`] : []),
        ];
        const r = await raw(srv.port, lines.join('\r\n') + '\r\n\r\n');
        expect(r.status, `${target} ${withCredential}`).toBeGreaterThanOrEqual(400);
        expect(r.status, `${target} ${withCredential}`).toBeLessThan(500);
      }
      const plain = await raw(srv.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\nConnection: close\r\n\r\n`);
      expect(plain.status, target).toBeGreaterThanOrEqual(400);
      expect(plain.status, target).toBeLessThan(500);
    }
    expect((await http('/')).status).toBe(200);
  });

  it('opens the API socket only with a credential in the subprotocol list, from its own origin', async () => {
    await expect(openWs({})).rejects.toThrow(/403/);
    await expect(openWs({ credential: 'not-a-credential' })).rejects.toThrow(/403/);
    await expect(openWs({ credential, origin: 'http://evil.example' })).rejects.toThrow(/403/);
    await expect(openWs({ credential, origin: `http://127.0.0.1:${srv.port + 1}` })).rejects.toThrow(/403/);
    // The old cookie no longer opens anything.
    await expect(openWs({ headers: { cookie: `ramforge_token_${srv.port}=${credential}` } })).rejects.toThrow(/403/);
    const ws = await openWs({ credential });
    expect(ws.protocol).toBe('ramforge.v1');
    ws.close();
  });

  it('speaks the WIRE.md protocol: state on connect, calls, errors with the reader message', async () => {
    const ws = await openWs({ credential });
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

  it('stores uploads under a sanitised name, bounded in size, only with the credential', async () => {
    const put = (name: string, body: Buffer, headers: Record<string, string> = {}) =>
      http(`/upload?name=${encodeURIComponent(name)}`, { method: 'PUT', body, headers: { authorization: `Bearer ${credential}`, 'content-length': String(body.length), ...headers } });
    expect((await http('/upload?name=a', { method: 'PUT', body: Buffer.from('x'), headers: { 'content-length': '1' } })).status).toBe(403);
    expect((await put('a', Buffer.from('x'), { authorization: 'Bearer wrong' })).status).toBe(403);
    expect((await put('a', Buffer.from('x'), { origin: 'http://evil.example' })).status).toBe(403);
    const ok = await put('../../evil name.gguf', Buffer.from('GGUF-bytes'));
    expect(ok.status).toBe(200);
    const path = JSON.parse(ok.body).path as string;
    expect(path).toBe(join(dir, 'uploads', 'evil_name.gguf'));
    expect(await readFile(path, 'utf8')).toBe('GGUF-bytes');
    const big = await put('big.gguf', Buffer.alloc(2048));
    expect(big.status).toBe(413);
    expect((await readdir(join(dir, 'uploads'))).sort()).toEqual(['evil_name.gguf']);
  });

  it('a server error after listen (accept failing with EMFILE) is logged a few times, never thrown', () => {
    const s = createServer();
    const lines: string[] = [];
    keepServing(s, (l) => lines.push(l));
    for (let i = 0; i < 20; i++) expect(() => s.emit('error', Object.assign(new Error('accept EMFILE'), { code: 'EMFILE' }))).not.toThrow();
    expect(lines).toEqual(Array(5).fill('ramforge serve: accept EMFILE'));
  });

  it('sanitises names', () => {
    expect(sanitizeUploadName('C:\\Users\\me\\model.gguf')).toBe('model.gguf');
    expect(sanitizeUploadName('.hidden')).toBe('hidden');
    expect(sanitizeUploadName('..')).toBe('upload.gguf');
    expect(sanitizeUploadName('a'.repeat(300) + '.gguf')).toMatch(/^a{115}\.gguf$/);
  });
});
