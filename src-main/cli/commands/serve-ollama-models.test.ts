// Ollama's /api/pull on a real `ramforge serve --api` (the built CLI, a real worker), through
// the ollama client, from a loopback file server this test starts (as pull.test.ts does): the
// model at a URL lands, byte for byte and checked against the sha256 published beside it, in
// RAMforge's models folder, with progress streamed as Ollama streams it; a wrong checksum is an
// error line and leaves nothing; a name that is not a URL is a 400 saying what to send. Then
// /api/copy, /api/delete and /api/create in that folder, which a name cannot leave.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ollama } from 'ollama';
import { RangeServer } from '../../node/remote/range-server.test-util.js';
import { serveApi, stopServed, synthModel, type Served } from './serve-api.test-util.js';

let dir = '';
let server: Served;
const files = new RangeServer();
let model: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-serve-pull-'));
  const path = synthModel(dir, 'tiny.gguf', ['--seed', '6']);
  model = await readFile(path);
  const sha = createHash('sha256').update(model).digest('hex');
  files.files.set('/m/pulled.gguf', { bytes: model, etag: 'e1' });
  files.files.set('/m/pulled.gguf.sha256', { bytes: Buffer.from(`${sha}  pulled.gguf\n`) });
  files.files.set('/m/bad.gguf', { bytes: model, etag: 'e2' });
  files.files.set('/m/bad.gguf.sha256', { bytes: Buffer.from(`${'0'.repeat(64)}  bad.gguf\n`) });
  await files.start();
  server = await serveApi(dir, ['--parallel', '1', path]);
}, 180_000);

afterAll(async () => {
  await stopServed(server);
  await files.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("Ollama's POST /api/pull", () => {
  it('downloads the model at a URL into the models folder, verified, with progress as Ollama streams it', async () => {
    const ollama = new Ollama({ host: `http://127.0.0.1:${server.port}` });
    const lines = [];
    for await (const p of await ollama.pull({ model: files.url('/m/pulled.gguf'), stream: true })) lines.push(p);
    expect(lines[0]?.status).toBe('pulling manifest');
    expect(lines.at(-1)?.status).toBe('success');
    const progress = lines.filter((l) => l.status === 'downloading pulled.gguf');
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatchObject({ total: model.length, completed: model.length });
    // Bounded: about one line per percent, not one per chunk.
    expect(progress.length).toBeLessThanOrEqual(102);
    const saved = join(dir, 'data', 'models', 'pulled.gguf');
    expect((await readFile(saved)).equals(model)).toBe(true);

    // Pulled again: already there, nothing fetched.
    files.reset();
    const again = await ollama.pull({ model: files.url('/m/pulled.gguf'), stream: false });
    expect(again.status).toBe('success');
    expect(files.bytesSent('/m/pulled.gguf')).toBeLessThan(1000);
  });

  it('a checksum that does not match is an error line and leaves no file; a name that is not a URL is a 400', async () => {
    const r = await fetch(`http://127.0.0.1:${server.port}/api/pull`, { method: 'POST', body: JSON.stringify({ model: files.url('/m/bad.gguf') }) });
    const lines = (await r.text()).trim().split('\n').map((l) => JSON.parse(l) as { status?: string; error?: string });
    expect(lines[0]?.status).toBe('pulling manifest');
    expect(lines.at(-1)?.error).toMatch(/sha256/);
    expect(existsSync(join(dir, 'data', 'models', 'bad.gguf'))).toBe(false);

    const name = await fetch(`http://127.0.0.1:${server.port}/api/pull`, { method: 'POST', body: JSON.stringify({ model: 'llama3.2' }) });
    expect(name.status).toBe(400);
    expect(((await name.json()) as { error: string }).error).toMatch(/http\(s\) URL of a \.gguf file/);
  });

  it('/api/copy copies a model of the folder, or the loaded one, under a new name; /api/delete removes one; neither leaves the folder', async () => {
    const ollama = new Ollama({ host: `http://127.0.0.1:${server.port}` });
    const folder = join(dir, 'data', 'models');
    await ollama.pull({ model: files.url('/m/pulled.gguf'), stream: false });
    await ollama.copy({ source: 'pulled:latest', destination: 'pulled-copy' });
    expect((await readFile(join(folder, 'pulled-copy.gguf'))).equals(model)).toBe(true);
    // The loaded model lives outside the folder (this test's tiny.gguf): named as the API serves it.
    await ollama.copy({ source: 'tiny', destination: 'tiny-copy' });
    expect((await readFile(join(folder, 'tiny-copy.gguf'))).equals(await readFile(join(dir, 'tiny.gguf')))).toBe(true);
    const onto = await ollama.copy({ source: 'pulled', destination: 'tiny-copy' }).catch((e: unknown) => e);
    expect((onto as Error).message).toMatch(/already exists/);

    await ollama.delete({ model: 'pulled-copy:latest' });
    expect(existsSync(join(folder, 'pulled-copy.gguf'))).toBe(false);
    const missing = await fetch(`http://127.0.0.1:${server.port}/api/delete`, { method: 'DELETE', body: JSON.stringify({ model: 'pulled-copy' }) });
    expect(missing.status).toBe(404);
    const escape = await fetch(`http://127.0.0.1:${server.port}/api/delete`, { method: 'DELETE', body: JSON.stringify({ model: '../tiny' }) });
    expect(escape.status).toBe(400);
    expect(existsSync(join(dir, 'tiny.gguf'))).toBe(true);
    const away = await fetch(`http://127.0.0.1:${server.port}/api/copy`, { method: 'POST', body: JSON.stringify({ source: 'pulled', destination: '/tmp/x' }) });
    expect(away.status).toBe(400);
  });

  it("/api/create makes a model from an existing one as it is; changes it cannot write into the file are 400s", async () => {
    const ollama = new Ollama({ host: `http://127.0.0.1:${server.port}` });
    const folder = join(dir, 'data', 'models');
    const lines = [];
    for await (const p of await ollama.create({ model: 'made', from: 'tiny', stream: true })) lines.push(p.status);
    expect(lines.at(-1)).toBe('success');
    expect((await readFile(join(folder, 'made.gguf'))).equals(await readFile(join(dir, 'tiny.gguf')))).toBe(true);
    const withSystem = await ollama.create({ model: 'made2', from: 'tiny', system: 'You are terse.' }).catch((e: unknown) => e);
    expect((withSystem as Error).message).toMatch(/'system' is not supported/);
    expect(existsSync(join(folder, 'made2.gguf'))).toBe(false);
  });
});
