// What the CLI refuses before any inference worker is started, with exit 2 and a message naming
// the problem: every file of the malformed corpus, in every command that loads a model (the
// hardened reader's own message), and absurd parameters (every numeric flag of the commands
// that plan or load is bounded by the settings module's LIMITS; a context whose KV cache cannot
// exist on this machine; layers the model does not have).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandSpec } from '../args.js';
import { UsageError } from '../../shared/errors.js';
import { runCommand, writeSparseModel } from './run-command.test-util.js';
import { malformedCorpus } from '../../shared/gguf/malformed-corpus.test-util.js';
import { openGgufModel } from '../../node/gguf-file.js';
import { detectCgroup } from '../../supervisor/detect.js';

const started = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../worker/start-worker.js', async (orig) => ({
  ...(await orig<typeof import('../../worker/start-worker.js')>()),
  startWorker: async () => {
    started.count++;
    throw new Error('no worker may start for a refused run');
  },
}));

const { command: run } = await import('./run.js');
const { command: bench } = await import('./bench.js');
const { command: benchServe } = await import('./bench-serve.js');
const { command: sweep } = await import('./sweep.js');
const { command: benchBinding } = await import('./bench-binding.js');
const { command: plan } = await import('./plan.js');

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

let wideDir = '';
let model = '';
// KV cache of 64 layers × 8 KV heads × 128 dims, F16 keys and values: 256 KiB per token.
const KV_PER_TOKEN = 64 * 2 * 8 * 128 * 2;
beforeAll(async () => {
  wideDir = await mkdtemp(join(tmpdir(), 'ramforge-limits-'));
  model = join(wideDir, 'wide.gguf');
  await writeSparseModel(model, { layers: 64, embd: 1024, heads: 8, kvHeads: 8, ff: 1024, ctx: 1 << 20 });
});
afterAll(async () => {
  await rm(wideDir, { recursive: true, force: true });
});

const LOADING: CommandSpec[] = [run, bench, benchServe, sweep, benchBinding, plan];

describe('absurd parameters', () => {
  it('every int and number flag of the commands that plan or load declares its range', () => {
    const unbounded = LOADING.flatMap((c) => c.flags.filter((f) => (f.type === 'int' || f.type === 'number') && !f.range).map((f) => `${c.name} --${f.name}`));
    expect(unbounded).toEqual([]);
  });

  const cases: [CommandSpec, string[], RegExp][] = [
    [run, ['--ctx', '2000000000'], /^--ctx must be 16\.\.1048576/],
    [run, ['--batch', '0'], /^--batch must be 1\.\.8192/],
    [run, ['--repeat-penalty', '1.1', '--repeat-last-n', '2000000000'], /^--repeat-last-n must be -1\.\.1048576/],
    [run, ['--threads', '100000'], /^--threads must be 1\.\.512/],
    [run, ['-n', '-5'], /^--max-tokens must be 0\.\.1048576/],
    [run, ['-n', '2000000000'], /^--max-tokens must be 0\.\.1048576/],
    [run, ['--seed', '-1'], /^--seed must be 0\.\.4294967295/],
    [run, ['--temperature', '1e9'], /^--temperature must be 0\.\.100/],
    [run, ['--gpu-layers', '2000000000'], /^--gpu-layers must be 0\.\.65536/],
    [run, ['--graph-trace', '--graph-trace-events', '2000000000'], /^--graph-trace-events must be 1\.\.10000000/],
    [run, ['--ram', '1G', '--enforce-ram', '--enforce-timeout', '1e20'], /^--enforce-timeout must be 1\.\.2147483/],
    [run, ['--prefetch-depth', '100'], /^--prefetch-depth must be 0\.\.16/],
    [run, ['--parallel', '1000'], /^--parallel must be 1\.\.64/],
    [run, ['--release-layer', '64'], /^--release-layer 64: the model has layers 0–63/],
    [run, ['--inspect-layer', '99'], /^--inspect-layer 99: the model has layers 0–63/],
    // Within every bound, but the KV cache alone is larger than any machine here.
    [run, ['--ctx', '1048576'], /^--ctx 1048576: a context of 1048576 tokens needs .* more than this machine's/],
    [run, ['--ctx', '1048576', '--ram', '8G'], /^--ctx 1048576: a context of 1048576 tokens needs .* more than this machine's/],
    [bench, ['--ram', '1G', '--reps', '2000000000'], /^--reps must be 1\.\.1000/],
    [bench, ['--ram', '1G', '--tokens', '2000000000'], /^--tokens must be 0\.\.1048576/],
    [sweep, ['--caps', '1G', '--reps', '2000000000'], /^--reps must be 1\.\.1000/],
    [benchServe, ['--ram', '1G', '--tokens', '2000000000'], /^--tokens must be 0\.\.1048576/],
    [benchBinding, ['--tokens', '2000000000'], /^--tokens must be 0\.\.1048576/],
    [benchBinding, ['--threads', '100000'], /^--threads must be 1\.\.512/],
    [plan, ['--ram', '1G', '--kv-bytes', '2000000000'], /^--kv-bytes must be 0\.25\.\.8/],
    [plan, ['--ram', '1G', '--ctx', '0'], /^--ctx must be 16\.\.1048576/],
  ];
  for (const [cmd, flags, why] of cases) {
    it(`${cmd.name} ${flags.join(' ')}: exit 2, no worker`, async () => {
      if (why.source.includes("this machine's")) expect(KV_PER_TOKEN * (1 << 20)).toBeGreaterThan(totalmem());
      const extra = cmd === run ? ['-p', 'hi', '-q'] : [];
      const err = await runCommand(cmd, [...extra, ...flags, '--', model]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).exitCode).toBe(2);
      expect((err as UsageError).message).toMatch(why);
      expect(started.count).toBe(0);
    });
  }
});
