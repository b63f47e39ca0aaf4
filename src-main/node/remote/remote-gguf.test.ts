import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RangeServer } from './range-server.test-util.js';
import { tinyModel, tinySpec } from '../../shared/gguf/tiny-models.test-util.js';
import { splitSpec } from '../../shared/gguf/split-set.test-util.js';
import { parseGgufHeader, GgufError } from '../../shared/gguf/reader.js';
import { openRemoteModel, readRemoteHeader, RANGE_STEP_BYTES } from './remote-gguf.js';
import { HttpError } from './http-get.js';

const server = new RangeServer();
// A vocabulary big enough that the header spans several range steps.
const big = tinyModel({ vocab: 120_000, name: 'big-vocab' });
const bigHeader = parseGgufHeader(big, big.length);

beforeAll(async () => {
  await server.start();
  server.files.set('/m/big.gguf', { bytes: big, etag: 'v1' });
  server.files.set('/m/norange.gguf', { bytes: big, noRanges: true });
  server.files.set('/m/text.gguf', { bytes: Buffer.from('hello, this is not a model\n'.repeat(100)) });
  server.redirects.set('/r/big.gguf', '/r2/big.gguf');
  server.redirects.set('/r2/big.gguf', server.url('/m/big.gguf'));
  server.redirects.set('/loop/a.gguf', '/loop/b.gguf');
  server.redirects.set('/loop/b.gguf', '/loop/a.gguf');
  splitSpec(tinySpec({ layers: 3 }), 3).forEach((bytes, i) => server.files.set(`/split/s-0000${i + 1}-of-00003.gguf`, { bytes }));
});
afterAll(() => server.close());

describe('readRemoteHeader', () => {
  it('reads only the header: at most its bytes plus one range step, in counted range requests', async () => {
    server.reset();
    const r = await readRemoteHeader(server.url('/m/big.gguf'));
    expect(bigHeader.dataOffset).toBeGreaterThan(2 * RANGE_STEP_BYTES);
    expect(r.header.dataOffset).toBe(bigHeader.dataOffset);
    expect(r.header.tensors.map((t) => [t.name, t.start, t.end])).toEqual(bigHeader.tensors.map((t) => [t.name, t.start, t.end]));
    expect(r.fileSize).toBe(big.length);
    const seen = server.requestsFor('/m/big.gguf');
    expect(seen.length).toBe(r.requests);
    expect(seen.every((q) => q.status === 206 && q.range !== null)).toBe(true);
    expect(seen.length).toBeLessThanOrEqual(Math.ceil(bigHeader.dataOffset / RANGE_STEP_BYTES) + 1);
    expect(server.bytesSent('/m/big.gguf')).toBe(r.bytesRead);
    expect(r.bytesRead).toBeLessThanOrEqual(bigHeader.dataOffset + RANGE_STEP_BYTES);
    expect(r.bytesRead).toBeLessThan(big.length / 2);
  });

  it('follows redirects (each hop counted) and reads later ranges where they led', async () => {
    server.reset();
    const r = await readRemoteHeader(server.url('/r/big.gguf'));
    expect(r.header.dataOffset).toBe(bigHeader.dataOffset);
    expect(server.requestsFor('/r').length).toBe(2);
    expect(r.requests).toBe(server.seen.length);
  });

  it('gives up on a redirect loop', async () => {
    const e = await readRemoteHeader(server.url('/loop/a.gguf')).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HttpError);
    expect((e as HttpError).kind).toBe('redirects');
  });

  it('refuses a server that ignores Range, without downloading the body', async () => {
    server.reset();
    const e = await readRemoteHeader(server.url('/m/norange.gguf')).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HttpError);
    expect((e as HttpError).kind).toBe('no-range');
    expect((e as Error).message).toMatch(/does not support range requests .*HTTP 200 instead of 206/);
    expect(server.seen.length).toBe(1);
    await new Promise((r) => setTimeout(r, 100));
    expect(server.bytesSent()).toBeLessThan(big.length / 4);
  });

  it('a file that is not GGUF is the reader error, named by its URL', async () => {
    const e = await readRemoteHeader(server.url('/m/text.gguf')).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(GgufError);
    expect((e as GgufError).code).toBe('BAD_MAGIC');
    expect((e as Error).message).toContain('/m/text.gguf');
  });

  it('404 is not-found', async () => {
    const e = await readRemoteHeader(server.url('/m/none.gguf')).catch((x: unknown) => x);
    expect((e as HttpError).kind).toBe('not-found');
  });

  it('times out on a server that never answers', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as AddressInfo).port;
    try {
      const t0 = Date.now();
      const e = await readRemoteHeader(`http://127.0.0.1:${port}/x.gguf`, { http: { timeoutMs: 300 } }).catch((x: unknown) => x);
      expect((e as HttpError).kind).toBe('timeout');
      expect(Date.now() - t0).toBeLessThan(5000);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('refuses a header larger than the cap', async () => {
    const e = await readRemoteHeader(server.url('/m/big.gguf'), { maxHeaderBytes: RANGE_STEP_BYTES }).catch((x: unknown) => x);
    expect((e as GgufError).code).toBe('HEADER_TOO_LARGE');
  });
});

describe('openRemoteModel', () => {
  it('a split set by URL pattern: every shard header, from any shard URL', async () => {
    server.reset();
    const m = await openRemoteModel(server.url('/split/s-00002-of-00003.gguf'));
    expect(m.shards.map((s) => s.path.split('/').pop())).toEqual(['s-00001-of-00003.gguf', 's-00002-of-00003.gguf', 's-00003-of-00003.gguf']);
    expect(m.view.blockCount).toBe(3);
    expect(m.view.tensors.length).toBe(tinySpec({ layers: 3 }).tensors?.length);
    expect(new Set(server.seen.map((q) => q.path)).size).toBe(3);
    expect(m.requests).toBe(server.seen.length);
  });

  it('a missing shard is an error naming it', async () => {
    server.files.set('/split2/t-00001-of-00002.gguf', server.files.get('/split/s-00001-of-00003.gguf')!);
    const e = await openRemoteModel(server.url('/split2/t-00001-of-00002.gguf')).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(GgufError);
    expect((e as Error).message).toMatch(/split\.count is 3/);
  });
});
