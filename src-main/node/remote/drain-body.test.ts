import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import { mkdtemp, open, readFile, rm, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { drainBody } from './drain-body.js';

const body = randomBytes(256 * 1024);
const SENT = 200 * 1024;
let server: Server;
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-drain-'));
  // Announces the whole body, sends part of it, then resets the connection.
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-length': String(body.length) });
    res.write(body.subarray(0, SENT), () => res.socket?.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

const fetchBody = (): Promise<IncomingMessage> => new Promise((resolve, reject) => get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, resolve).on('error', reject));

describe('a body drained to a file', () => {
  it('keeps every byte received before the connection failed, however slow the writes', async () => {
    const path = join(dir, 'slow.part');
    const real = await open(path, 'w');
    // A slow disk: each write waits, so chunks pile up behind it when the connection fails.
    const slow = { write: async (...a: Parameters<FileHandle['write']>) => (await new Promise((r) => setTimeout(r, 15)), real.write(...a)) } as unknown as FileHandle;
    let seen = 0;
    const res = await fetchBody();
    const d = await drainBody(res, slow, 0, (b) => (seen += b.length));
    await real.close();
    expect(d.failure).not.toBeNull();
    expect(d.pos).toBe(seen);
    const kept = await readFile(path);
    expect(kept.length).toBe(d.pos);
    expect(kept.equals(body.subarray(0, kept.length))).toBe(true);
    // What reached this side before the reset is all written (loopback delivers what was sent).
    expect(d.pos).toBe(SENT);
  });
});
