// Every CLI command that loads a model refuses each file of the malformed corpus with exit 2 and
// the hardened reader's message, before any inference worker is started.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandSpec } from '../args.js';
import { UsageError } from '../errors.js';
import { runCommand } from './run-command.test-util.js';
import { malformedCorpus } from '../../shared/gguf/malformed-corpus.test-util.js';
import { openGgufModel } from '../../node/gguf-file.js';
import { detectCgroup } from '../../supervisor/detect.js';

const started = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../worker/start-worker.js', async (orig) => ({
  ...(await orig<typeof import('../../worker/start-worker.js')>()),
  startWorker: async () => {
    started.count++;
    throw new Error('no worker may start for a refused file');
  },
}));

const { command: run } = await import('./run.js');
const { command: bench } = await import('./bench.js');
const { command: benchServe } = await import('./bench-serve.js');
const { command: sweep } = await import('./sweep.js');
const { command: benchBinding } = await import('./bench-binding.js');

const corpus = malformedCorpus();
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-cli-load-check-'));
  for (const c of corpus) await writeFile(join(dir, `${c.name}.gguf`), c.bytes);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// bench-serve and sweep hold every run to a cap and say so first where no cgroup can be made.
const capped = detectCgroup().usable;
if (!capped) console.warn('bench-serve and sweep: not checked here, this machine cannot create a memory cgroup');
const commands: [CommandSpec, string[]][] = [
  [run, ['-p', 'hi', '-n', '2', '-q']],
  [bench, ['--ram', '1G', '--tokens', '2']],
  [benchBinding, []],
  ...(capped ? ([[benchServe, ['--ram', '1G']], [sweep, ['--caps', '1G']]] as [CommandSpec, string[]][]) : []),
];

describe('CLI load commands and the malformed corpus', () => {
  for (const [cmd, extra] of commands) {
    it(`${cmd.name} refuses every corpus file with exit 2 and the reader's message, no worker started`, async () => {
      for (const c of corpus) {
        const path = join(dir, `${c.name}.gguf`);
        const reader = await openGgufModel(path).then(
          () => 'accepted',
          (e: Error) => e.message,
        );
        const err = await runCommand(cmd, [...extra, '--', path]).catch((e: unknown) => e);
        expect(err, c.name).toBeInstanceOf(UsageError);
        expect((err as UsageError).exitCode, c.name).toBe(2);
        expect((err as UsageError).message, c.name).toBe(reader);
      }
      expect(started.count).toBe(0);
    });
  }
});
