// Uploads leave nothing behind: not on abort (at any moment, also while the free-space check is
// still running), not on a refused upload; concurrent uploads cannot race the quota or the
// free-space check; stale .part files of dead servers are swept.
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { mkdtemp, readdir, readlink, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { UploadError, UploadStore, type UploadLimits } from './upload.js';

let dir: string;
let server: Server;
let port: number;
let store: UploadStore;
let settled: { status: number; body: string }[];
let arrived = 0;

const LIMITS: UploadLimits = { maxBytes: 1_000_000, quotaBytes: 10_000_000, reserveBytes: 0, maxConcurrent: 4 };

async function serve(limits: Partial<UploadLimits> = {}, freeBytes?: (d: string) => Promise<number>): Promise<void> {
  store = new UploadStore(join(dir, 'up'), { ...LIMITS, ...limits }, freeBytes);
  settled = [];
  arrived = 0;
  server = createServer((req, res) => {
    arrived++;
    store.receive(req, 'm.gguf').then(
      (path) => (settled.push({ status: 200, body: path }), res.end(path)),
      (e: unknown) => {
        const status = e instanceof UploadError ? e.status : 500;
        settled.push({ status, body: (e as Error).message });
        res.writeHead(status, { connection: 'close' }).end((e as Error).message);
      },
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
}

/** Sends the headers and `sent` bytes of a `declared`-byte upload; `end()` sends the rest, `abort()` resets. */
function startUpload(declared: number, sent: number): { abort: () => void; end: () => Promise<number> } {
  const s = connect(port, '127.0.0.1');
  s.on('error', () => {});
  s.write(`PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Length: ${declared}\r\n\r\n`);
  if (sent > 0) s.write(Buffer.alloc(sent, 1));
  return {
    abort: () => s.resetAndDestroy(),
    end: () =>
      new Promise<number>((resolve) => {
        // No half-close: Node's server drops a request whose client ends its side first.
        let text = '';
        const done = (): void => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0));
        s.on('data', (c: Buffer) => {
          text += c.toString();
          if (/^HTTP\/1\.1 \d+/.test(text)) (done(), s.destroy());
        });
        s.on('close', done);
        s.write(Buffer.alloc(declared - sent, 2));
      }),
  };
}

async function until(pred: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const t0 = Date.now();
  while (!(await pred())) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Open fds of this process on files under the test folder. */
async function fdsUnder(root: string): Promise<number> {
  let n = 0;
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (target.startsWith(root)) n++;
  }
  return n;
}

const files = async (): Promise<string[]> => (await readdir(join(dir, 'up')).catch(() => [] as string[])).sort();

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-upload-'));
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

describe('UploadStore', () => {
  it('20 uploads aborted mid-body: every one settles, no .part file, no fd, nothing counted in flight', async () => {
    await serve({ maxConcurrent: 20 });
    const ups = Array.from({ length: 20 }, () => startUpload(500_000, 100_000));
    await until(async () => (await files()).length === 20);
    for (const u of ups) u.abort();
    await until(() => settled.length === 20);
    expect(settled.every((s) => s.status === 400 && /aborted/.test(s.body))).toBe(true);
    expect(await files()).toEqual([]);
    expect(await fdsUnder(dir)).toBe(0);
    expect(store.inFlightBytes()).toBe(0);
  });

  it('an abort while the free-space check is still running is noticed (listeners attached before any await)', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    await serve({}, async () => (await gate, 1e12));
    const ups = Array.from({ length: 5 }, () => startUpload(1000, 10));
    await until(() => arrived === 5);
    for (const u of ups) u.abort();
    await new Promise((r) => setTimeout(r, 100));
    release();
    await until(() => settled.length === 5);
    expect(settled.map((s) => s.status)).toEqual([400, 400, 400, 400, 400]);
    expect(await files()).toEqual([]);
    expect(await fdsUnder(dir)).toBe(0);
    expect(store.inFlightBytes()).toBe(0);
  });

  it('a completed upload is renamed into place and counts against the quota from then on', async () => {
    await serve({ quotaBytes: 1500 });
    expect(await startUpload(1000, 0).end()).toBe(200);
    expect(await files()).toEqual(['m.gguf']);
    expect(await startUpload(600, 0).end()).toBe(413);
    expect(await files()).toEqual(['m.gguf']);
  });

  it('a file is being written until its upload has arrived whole: its .part and its final name, then neither', async () => {
    await serve();
    const final = join(dir, 'up', 'm.gguf');
    // An older upload under the same name: the new one will replace it.
    expect(await startUpload(100, 0).end()).toBe(200);
    expect(store.isBeingWritten(final)).toBe(false);
    const up = startUpload(500_000, 1000);
    await until(async () => (await files()).some((f) => f.endsWith('.part')));
    const part = join(dir, 'up', (await files()).find((f) => f.endsWith('.part')) as string);
    expect(store.isBeingWritten(part)).toBe(true);
    expect(store.isBeingWritten(final)).toBe(true);
    expect(await up.end()).toBe(200);
    expect(store.isBeingWritten(final)).toBe(false);
    expect(store.isBeingWritten(part)).toBe(false);
  });

  it('two uploads at once cannot both pass a quota only one fits', async () => {
    await serve({ quotaBytes: 1000 });
    const a = startUpload(600, 100);
    const b = startUpload(600, 100);
    await until(() => settled.length === 1);
    expect(settled[0]?.status).toBe(413);
    expect(settled[0]?.body).toMatch(/quota/);
    const codes = await Promise.all([a.end(), b.end()]);
    expect(codes.sort()).toEqual([200, 413]);
    expect(await files()).toEqual(['m.gguf']);
  });

  it('two uploads at once cannot both pass a free-space check only one fits (bytes not yet written are counted)', async () => {
    // The disk answers the same free figure throughout: only the store's own bookkeeping can refuse the second.
    await serve({ reserveBytes: 100 }, async () => 1000);
    const a = startUpload(600, 0);
    const b = startUpload(600, 0);
    await until(() => settled.length === 1);
    expect(settled[0]?.status).toBe(507);
    expect((await Promise.all([a.end(), b.end()])).sort()).toEqual([200, 507]);
  });

  it('refuses more uploads at once than allowed, and frees the slot when one ends', async () => {
    await serve({ maxConcurrent: 1 });
    const a = startUpload(600, 100);
    await until(async () => (await files()).length === 1);
    expect(await startUpload(10, 0).end()).toBe(429);
    expect(await a.end()).toBe(200);
    expect(await startUpload(10, 0).end()).toBe(200);
  });

  it('refuses a missing or absurd Content-Length and a file over the limit before writing anything', async () => {
    await serve();
    const r = (head: string): Promise<number> =>
      new Promise((resolve) => {
        const s = connect(port, '127.0.0.1');
        let text = '';
        s.on('data', (c: Buffer) => (text += c.toString()));
        s.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1] ?? 0)));
        s.on('error', () => {});
        s.end(`PUT /upload HTTP/1.1\r\nHost: x\r\n${head}\r\n`);
      });
    expect(await r('Transfer-Encoding: chunked\r\n\r\n0\r\n')).toBe(411);
    expect(await r('Content-Length: 99999999999999999999\r\n')).toBe(400);
    expect(await r('Content-Length: 2000000\r\n')).toBe(413);
    expect(await files()).toEqual([]);
  });

  it('sweeps .part files of servers that are gone, keeps those of running ones', async () => {
    await serve();
    const up = join(dir, 'up');
    await mkdir(up, { recursive: true });
    const dead = 2 ** 22 + 12345; // above pid_max's default: no such process
    await writeFile(join(up, `.a.gguf.${dead}.0123abcd.part`), 'x');
    await writeFile(join(up, `.b.gguf.${process.pid}.0123abcd.part`), 'x');
    await writeFile(join(up, `.c.gguf.0123abcd.part`), 'x');
    await writeFile(join(up, `.d.gguf.${process.ppid}.0123abcd.part`), 'x');
    await writeFile(join(up, 'kept.gguf'), 'x');
    expect(await store.sweep()).toBe(3);
    expect(await files()).toEqual([`.d.gguf.${process.ppid}.0123abcd.part`, 'kept.gguf']);
  });
});
