import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RangeServer } from './range-server.test-util.js';
import { download, DownloadError } from './download.js';

const server = new RangeServer();
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-download-'));
  await server.start();
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('download', () => {
  it('refuses to start when the file system has less free space than the file needs', async () => {
    const bytes = randomBytes(200_000);
    server.files.set('/space.bin', { bytes });
    const dest = join(dir, 'space.bin');
    const e = await download({ url: server.url('/space.bin'), dest, freeBytes: async () => 1000 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DownloadError);
    expect((e as DownloadError).kind).toBe('space');
    expect((e as Error).message).toMatch(/200000 bytes to write, 1000 free/);
    expect(existsSync(dest)).toBe(false);
  });

  it('a file that changed on the server since the .part was written is fetched whole (If-Range), never spliced', async () => {
    const v1 = randomBytes(300_000);
    const v2 = randomBytes(300_000);
    server.files.set('/changing.bin', { bytes: v1, etag: 'one', cutAfterBytes: 120_000 });
    const dest = join(dir, 'changing.bin');
    await expect(download({ url: server.url('/changing.bin'), dest, retries: 0 })).rejects.toThrow(/interrupted/);
    server.files.set('/changing.bin', { bytes: v2, etag: 'two' });
    server.reset();
    const r = await download({ url: server.url('/changing.bin'), dest });
    expect(r.resumedFrom).toBe(120_000);
    expect(server.seen[0]?.ifRange).toBe('"one"');
    expect(server.seen[0]?.status).toBe(200);
    expect((await readFile(dest)).equals(v2)).toBe(true);
  });

  it('a .part from another URL is not resumed', async () => {
    const a = randomBytes(50_000);
    server.files.set('/x/one.bin', { bytes: a, cutAfterBytes: 10_000 });
    const dest = join(dir, 'one.bin');
    await expect(download({ url: server.url('/x/one.bin'), dest, retries: 0 })).rejects.toThrow(/interrupted/);
    const b = randomBytes(50_000);
    server.files.set('/y/one.bin', { bytes: b });
    const r = await download({ url: server.url('/y/one.bin'), dest });
    expect(r.resumedFrom).toBe(0);
    expect((await readFile(dest)).equals(b)).toBe(true);
  });
});
