// The worker checks every model with our hardened reader before llama.cpp sees it, whoever
// asked for the load: each file of the malformed corpus sent straight to a real worker (as the
// app does when its plan failed, or an API client would) is refused with code BAD_MODEL and
// the reader's own message, and the same worker — never crashed — then loads a good model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkerHost } from './host.js';
import { malformedCorpus } from '../shared/gguf/malformed-corpus.test-util.js';
import { openGgufModel } from '../node/gguf-file.js';
import { synthesize } from '../synth/synthesize.js';

let dir = '';
let host: WorkerHost | null = null;
const corpus = malformedCorpus();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-load-check-'));
  for (const c of corpus) await writeFile(join(dir, `${c.name}.gguf`), c.bytes);
  await synthesize({ arch: 'llama', preset: 'tiny', type: 'Q4_0', seed: 3, out: join(dir, 'good.gguf') });
  host = await WorkerHost.start();
});
afterAll(async () => {
  await host?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the worker checks a model before llama.cpp loads it', () => {
  it('refuses every malformed file with the reader’s message and stays up', async () => {
    const h = host as WorkerHost;
    for (const c of corpus) {
      const path = join(dir, `${c.name}.gguf`);
      const reader = (await openGgufModel(path).then(
        () => null,
        (e: Error) => e,
      )) as Error | null;
      expect(reader, `${c.name}: the reader refuses it`).not.toBeNull();
      const err = (await h.load({ modelPath: path, ctx: 64 }).then(
        () => null,
        (e: unknown) => e,
      )) as { code?: string; message?: string } | null;
      expect(err, `${c.name}: the worker refuses it`).not.toBeNull();
      expect(err?.code, c.name).toBe('BAD_MODEL');
      expect(err?.message, c.name).toBe(reader?.message);
      expect(h.isAlive(), `${c.name}: the worker is still up`).toBe(true);
    }
  });

  it('then loads a good model in the same worker', async () => {
    const info = await (host as WorkerHost).load({ modelPath: join(dir, 'good.gguf'), ctx: 64 });
    expect(info.arch).toBe('llama');
  });
});
