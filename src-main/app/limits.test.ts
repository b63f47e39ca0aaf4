// The app refuses absurd settings before any worker starts: values outside the settings
// module's LIMITS at once, and a context within them whose KV cache the out-of-process plan
// shows is larger than the machine's RAM, with the plan's figures in the message.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppService } from './service.js';
import { defaultSettings } from './settings.js';
import { cliBuiltOrSkip } from '../cli/built-cli.test-util.js';
import { writeSparseModel } from '../cli/commands/run-command.test-util.js';

let dir = '';
let model = '';
const cliBuilt = cliBuiltOrSkip('the app limits tests');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-app-limits-'));
  model = join(dir, 'wide.gguf');
  // 256 KiB of KV cache per token: a context of 2^20 tokens needs 256 GiB.
  await writeSparseModel(model, { layers: 64, embd: 1024, heads: 8, kvHeads: 8, ff: 1024, ctx: 1 << 20 });
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!cliBuilt)('app load with absurd settings', () => {
  it('is refused before a worker starts', async () => {
    let started = 0;
    const svc = new AppService({
      dataDir: join(dir, 'data'),
      hostFactory: async () => {
        started++;
        throw new Error('no worker may start for absurd settings');
      },
    });
    try {
      for (const [patch, why] of [
        [{ ctx: 2_000_000_000 }, /^ctx: must be an integer 16\.\.1048576/],
        [{ batch: 0 }, /^batch: must be an integer 1\.\.8192/],
        [{ threads: 100_000 }, /^threads: must be an integer 1\.\.512/],
        [{ ctx: 1 << 20 }, /^ctx: a context of 1048576 tokens needs .* more than this machine's/],
      ] as const) {
        const err = await svc.load(model, { ...defaultSettings(), ...patch }).catch((e: Error) => e);
        expect((err as Error).message).toMatch(why);
      }
      expect((await svc.getState()).status).toBe('idle');
      expect(started).toBe(0);
      // Sampling and length bounds of a generation come from the same module.
      await expect(svc.generate('r', [{ role: 'user', content: 'hi' }], { repeatLastN: 2_000_000_000 }, 8)).rejects.toThrow(/^repeatLastN: must be an integer -1\.\.1048576/);
      await expect(svc.generate('r', [{ role: 'user', content: 'hi' }], null, 2_000_000_000)).rejects.toThrow(/^maxTokens: must be an integer 0\.\.1048576/);
    } finally {
      await svc.close();
    }
  });
});
