// Dropping a bad file on the app never reaches llama.cpp: the out-of-process plan (the built
// CLI, our hardened reader) refuses every file of the malformed corpus with the reader's message
// and no worker is started; a load prepared without reading the file (a stand-in for the
// preparation) still meets the real worker's own check, which refuses the file, and the service
// stays usable (idle with the message, not crashed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppService } from './service.js';
import { workerHostFactory } from './host-factory.js';
import { fakePrepare } from './fake-host.test-util.js';
import { defaultSettings } from './settings.js';
import { malformedCorpus } from '../shared/gguf/malformed-corpus.test-util.js';
import { openGgufModel } from '../node/gguf-file.js';
import { cliBuiltOrSkip } from '../cli/built-cli.test-util.js';

const corpus = malformedCorpus();
let dir = '';
const cliBuilt = cliBuiltOrSkip('the app load-check tests');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-app-load-check-'));
  for (const c of corpus) await writeFile(join(dir, `${c.name}.gguf`), c.bytes);
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function readerMessage(path: string): Promise<string> {
  return openGgufModel(path).then(
    () => 'accepted',
    (e: Error) => e.message,
  );
}

describe.skipIf(!cliBuilt)('app load of a file the reader refuses', () => {
  it('the plan refuses each corpus file with the reader’s message; no worker starts', async () => {
    let started = 0;
    const svc = new AppService({
      dataDir: join(dir, 'data-plan'),
      hostFactory: async () => {
        started++;
        throw new Error('no worker may start for a refused file');
      },
    });
    try {
      for (const c of corpus) {
        const path = join(dir, `${c.name}.gguf`);
        const err = (await svc.load(path, defaultSettings()).then(
          () => null,
          (e: Error) => e,
        )) as Error | null;
        expect(err?.message, c.name).toBe(await readerMessage(path));
        const state = await svc.getState();
        expect(state.status, c.name).toBe('idle');
        expect(state.message, c.name).toBe(err?.message);
      }
      expect(started).toBe(0);
    } finally {
      await svc.close();
    }
  });

  it('a load that reaches the worker unread: the worker refuses the file itself and the service stays usable', async () => {
    const svc = new AppService({
      dataDir: join(dir, 'data-worker'),
      hostFactory: workerHostFactory(),
      prepareModel: fakePrepare(),
    });
    try {
      for (const name of ['bad-magic', 'alignment-huge', 'block-count', 'missing-tensor']) {
        const path = join(dir, `${name}.gguf`);
        const err = (await svc.load(path, defaultSettings()).then(
          () => null,
          (e: unknown) => e,
        )) as { code?: string; message?: string } | null;
        expect(err?.code, name).toBe('BAD_MODEL');
        expect(err?.message, name).toBe(await readerMessage(path));
        expect((await svc.getState()).status, name).toBe('idle');
      }
    } finally {
      await svc.close();
    }
  });
});
