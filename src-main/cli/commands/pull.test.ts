// `ramforge pull`: plan first, then a resumable, verified download from a loopback server.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { command as pull } from './pull.js';
import { ExitError, UsageError } from '../../shared/errors.js';
import { runCommand } from './run-command.test-util.js';
import { RangeServer } from '../../node/remote/range-server.test-util.js';
import { tinyModel, tinySpec } from '../../shared/gguf/tiny-models.test-util.js';
import { splitSpec } from '../../shared/gguf/split-set.test-util.js';
import { parseGgufHeader } from '../../shared/gguf/reader.js';

const server = new RangeServer();
let dir = '';
let model: Buffer;
let n = 0;

/** A small model whose data section is random bytes, so a misplaced byte cannot hide among zeros. */
function randomModel(name: string): Buffer {
  const b = Buffer.from(tinyModel({ embd: 256, vocab: 4000, name }));
  const h = parseGgufHeader(b, b.length);
  randomBytes(b.length - h.dataOffset).copy(b, h.dataOffset);
  return b;
}
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const outDir = async () => mkdtemp(join(dir, `out${++n}-`));
const BASE = ['--ram', '8G', '--disk-bw', '1G'];

let stderr = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-pull-'));
  model = randomModel('pulled');
  await server.start();
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => vi.restoreAllMocks());

function captureStderr(): void {
  stderr = '';
  vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => {
    stderr += String(c);
    return true;
  });
}

describe('ramforge pull', () => {
  it('interrupted halfway (the server closes), then resumed: the file is byte-identical and only the rest is fetched', async () => {
    server.files.set('/a/model.gguf', { bytes: model, etag: 'e1', cutAfterBytes: Math.floor(model.length / 2) });
    const out = await outDir();
    captureStderr();
    const e = await runCommand(pull, [server.url('/a/model.gguf'), '--out', out, '--retries', '0', ...BASE]).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ExitError);
    expect((e as ExitError).exitCode).toBe(1);
    expect((e as Error).message).toMatch(/download interrupted at \d+ of \d+ bytes .*run the same command again to resume/);
    expect(existsSync(join(out, 'model.gguf'))).toBe(false);
    const partBytes = (await readFile(join(out, 'model.gguf.part'))).length;
    expect(partBytes).toBeGreaterThan(0);
    expect(partBytes).toBeLessThan(model.length);

    server.reset();
    const r = await runCommand(pull, [server.url('/a/model.gguf'), '--out', out, ...BASE]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Plan for RAM 8\.0 GiB \(--ram\), ctx \d+: FITS/);
    expect(r.stdout).toMatch(/Saved .*model\.gguf .*resumed at/);
    const got = await readFile(join(out, 'model.gguf'));
    expect(got.equals(model)).toBe(true);
    expect(await readdir(out)).toEqual(['model.gguf']);
    const body = server.requestsFor('/a/model.gguf').filter((q) => q.range === `bytes=${partBytes}-`);
    expect(body).toHaveLength(1);
    expect(body[0]?.ifRange).toBe('"e1"');
    expect(body[0]?.status).toBe(206);
    expect(body[0]?.bytes).toBe(model.length - partBytes);
    expect(stderr).toMatch(/model\.gguf \[#+\] 100% .* ETA 0:00/);
    expect(stderr).toMatch(/\/s ETA/);
  });

  it('resumes by itself within one run when retries are left', async () => {
    server.files.set('/b/model.gguf', { bytes: model, etag: 'e2', cutAfterBytes: 100_000 });
    const out = await outDir();
    captureStderr();
    server.reset();
    const r = await runCommand(pull, [server.url('/b/model.gguf'), '--out', out, '--retries', '2', ...BASE]);
    expect(r.code).toBe(0);
    const resumed = server.requestsFor('/b/model.gguf').filter((q) => /^bytes=\d+-$/.test(q.range ?? ''));
    expect(resumed.map((q) => [q.range, q.status])).toEqual([['bytes=100000-', 206]]);
    expect((await readFile(join(out, 'model.gguf'))).equals(model)).toBe(true);
  });

  it('a wrong checksum is refused and the download removed', async () => {
    server.files.set('/c/model.gguf', { bytes: model });
    const out = await outDir();
    captureStderr();
    const wrong = sha(Buffer.from('something else'));
    const e = await runCommand(pull, [server.url('/c/model.gguf'), '--out', out, '--sha256', wrong, ...BASE]).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ExitError);
    expect((e as ExitError).exitCode).toBe(1);
    expect((e as Error).message).toBe(`sha256 mismatch for model.gguf: expected ${wrong} (--sha256), got ${sha(model)}; the download was removed`);
    expect(await readdir(out)).toEqual([]);
  });

  it('verifies against the sha256 the server publishes (X-Linked-Etag, a .sha256 file), and refuses a wrong published one', async () => {
    server.files.set('/d/model.gguf', { bytes: model, headers: { 'x-linked-etag': `"${sha(model)}"` } });
    server.files.set('/e/model.gguf', { bytes: model });
    server.files.set('/e/model.gguf.sha256', { bytes: Buffer.from(`${sha(model)}  model.gguf\n`) });
    server.files.set('/f/model.gguf', { bytes: model, headers: { 'x-linked-etag': `"${sha(Buffer.from('not it'))}"` } });
    captureStderr();
    const o1 = await outDir();
    const r1 = await runCommand(pull, [server.url('/d/model.gguf'), '--out', o1, ...BASE]);
    expect(r1.stdout).toContain(`sha256 ${sha(model)} verified against X-Linked-Etag`);
    const o2 = await outDir();
    const r2 = await runCommand(pull, [server.url('/e/model.gguf'), '--out', o2, ...BASE]);
    expect(r2.stdout).toContain('verified against model.gguf.sha256');
    const o3 = await outDir();
    const e = await runCommand(pull, [server.url('/f/model.gguf'), '--out', o3, ...BASE]).catch((x: unknown) => x);
    expect((e as Error).message).toMatch(/sha256 mismatch .*\(X-Linked-Etag\)/);
    expect(await readdir(o3)).toEqual([]);
  });

  it('says so when nothing is published', async () => {
    server.files.set('/g/model.gguf', { bytes: model });
    captureStderr();
    const r = await runCommand(pull, [server.url('/g/model.gguf'), '--out', await outDir(), ...BASE]);
    expect(r.stdout).toMatch(/not verified: the server publishes no checksum/);
  });

  it('a model that cannot run under the budget is not downloaded without --force', async () => {
    server.files.set('/h/model.gguf', { bytes: model });
    server.reset();
    const out = await outDir();
    captureStderr();
    const e = await runCommand(pull, [server.url('/h/model.gguf'), '--out', out, '--ram', '1M', '--disk-bw', '1G']).catch((x: unknown) => x);
    expect((e as ExitError).exitCode).toBe(1);
    expect((e as Error).message).toMatch(/not downloading: the model cannot run under 1\.0 MiB .*--force/);
    expect(server.seen.every((q) => q.range !== null && q.status === 206)).toBe(true);
    expect(await readdir(out)).toEqual([]);
    const r = await runCommand(pull, [server.url('/h/model.gguf'), '--out', out, '--ram', '1M', '--disk-bw', '1G', '--force']);
    expect(r.stdout).toMatch(/CANNOT-RUN/);
    expect((await readFile(join(out, 'model.gguf'))).equals(model)).toBe(true);
  });

  it('a split set: every shard, each byte-identical; a second run finds them complete', async () => {
    const shards = splitSpec(tinySpec({ layers: 3 }), 3);
    shards.forEach((b, i) => server.files.set(`/s/x-0000${i + 1}-of-00003.gguf`, { bytes: b }));
    const out = await outDir();
    captureStderr();
    await runCommand(pull, [server.url('/s/x-00001-of-00003.gguf'), '--out', out, ...BASE]);
    for (const [i, b] of shards.entries()) expect((await readFile(join(out, `x-0000${i + 1}-of-00003.gguf`))).equals(Buffer.from(b))).toBe(true);
    const again = await runCommand(pull, [server.url('/s/x-00002-of-00003.gguf'), '--out', out, ...BASE]);
    expect(again.stdout.match(/already complete/g)).toHaveLength(3);
  });

  it('a server without range support: no plan, a plain download', async () => {
    server.files.set('/n/model.gguf', { bytes: model, noRanges: true });
    const out = await outDir();
    captureStderr();
    const r = await runCommand(pull, [server.url('/n/model.gguf'), '--out', out, ...BASE]);
    expect(r.code).toBe(0);
    expect(stderr).toMatch(/no plan before the download: .*does not support range requests/);
    expect((await readFile(join(out, 'model.gguf'))).equals(model)).toBe(true);
  });

  it('--json: the result as one document, progress as JSON lines on stderr', async () => {
    server.files.set('/j/model.gguf', { bytes: model, headers: { 'x-linked-etag': `"${sha(model)}"` } });
    const out = await outDir();
    captureStderr();
    const r = await runCommand(pull, [server.url('/j/model.gguf'), '--out', out, '--json', ...BASE]);
    const doc = JSON.parse(r.stdout) as { schemaVersion: number; dir: string; plan: { verdict: string } | null; files: { path: string; bytes: number; sha256: string; verifiedAgainst: string; skipped: boolean }[] };
    expect(doc.schemaVersion).toBe(1);
    expect(doc.dir).toBe(out);
    expect(doc.plan?.verdict).toBe('fits');
    expect(doc.files).toEqual([{ url: server.url('/j/model.gguf'), path: join(out, 'model.gguf'), bytes: model.length, sha256: sha(model), verifiedAgainst: 'X-Linked-Etag', resumedFrom: 0, skipped: false }]);
    const lines = stderr.trim().split('\n').map((l) => JSON.parse(l) as { file: string; done: number; total: number });
    expect(lines.at(-1)).toMatchObject({ file: 'model.gguf', done: model.length, total: model.length });
  });

  it('bad input exits 2', async () => {
    await expect(runCommand(pull, ['./model.gguf'])).rejects.toBeInstanceOf(UsageError);
    await expect(runCommand(pull, [server.url('/a/model.gguf'), '--sha256', 'abc'])).rejects.toThrow(/64 hex digits/);
    await expect(runCommand(pull, [server.url('/missing/model.gguf'), '--out', await outDir(), ...BASE])).rejects.toBeInstanceOf(UsageError);
  });
});
