// App downloads run the built CLI (`ramforge pull --json`) against a loopback server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RangeServer } from '../node/remote/range-server.test-util.js';
import { cliPath } from '../cli/built-cli.test-util.js';
import { tinyModel } from '../shared/gguf/tiny-models.test-util.js';
import { ModelPulls, type PullProgress } from './pulls.js';

const server = new RangeServer();
let dir = '';
let saved: string | undefined;
const model = Buffer.from(tinyModel({ embd: 256, vocab: 4000, name: 'app-pull' }));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-app-pull-'));
  saved = process.env.RAMFORGE_DATA;
  // The child saves into <RAMFORGE_DATA>/models.
  process.env.RAMFORGE_DATA = dir;
  await server.start();
  server.files.set('/m/app.gguf', { bytes: model });
});
afterAll(async () => {
  if (saved === undefined) delete process.env.RAMFORGE_DATA;
  else process.env.RAMFORGE_DATA = saved;
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('downloads from the app', () => {
  it('pulls into the models folder with progress events, and resolves with the result', async () => {
    const progress: PullProgress[] = [];
    const pulls = new ModelPulls({ entry: cliPath(), onProgress: (p) => progress.push(p) });
    const url = server.url('/m/app.gguf');
    const doc = (await pulls.start(url, 8 * 1024 ** 3)) as { files: { path: string; bytes: number }[]; plan: { verdict: string } };
    expect(doc.plan.verdict).toBe('fits');
    expect(doc.files[0]?.path).toBe(join(dir, 'models', 'app.gguf'));
    expect((await readFile(join(dir, 'models', 'app.gguf'))).equals(model)).toBe(true);
    expect(progress.at(-1)).toMatchObject({ url, file: 'app.gguf', done: model.length, total: model.length });
  });

  it('refuses what is not a URL, and a second pull of the same URL while one runs', async () => {
    const pulls = new ModelPulls({ entry: cliPath(), onProgress: () => {} });
    await expect(pulls.start('/etc/passwd', null)).rejects.toThrow(/http\(s\) URL/);
    server.files.set('/m/slow.gguf', { bytes: model, cutAfterBytes: 1000 });
    const first = pulls.start(server.url('/m/slow.gguf'), null);
    await expect(pulls.start(server.url('/m/slow.gguf'), null)).rejects.toThrow(/already being downloaded/);
    pulls.cancel(server.url('/m/slow.gguf'));
    await expect(first).rejects.toThrow(/stopped; pulling the same URL again resumes it|interrupted/);
  });

  it('a failure carries the CLI message', async () => {
    const pulls = new ModelPulls({ entry: cliPath(), onProgress: () => {} });
    await expect(pulls.start(server.url('/m/none.gguf'), null)).rejects.toThrow(/not found \(HTTP 404\)/);
  });
});
