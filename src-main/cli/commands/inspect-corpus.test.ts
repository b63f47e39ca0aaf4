// The malformed corpus end to end: each file is refused with exit 2, a message naming the
// problem and its offset; in-process through the command, and through the built CLI binary.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { command as inspect } from './inspect.js';
import { command as plan } from './plan.js';
import { UsageError } from '../../shared/errors.js';
import { runCommand } from './run-command.test-util.js';
import { malformedCorpus } from '../../shared/gguf/malformed-corpus.test-util.js';
import { packageRoot } from '../../node/paths.js';

let dir = '';
const corpus = malformedCorpus();
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-corpus-'));
  for (const c of corpus) await writeFile(join(dir, `${c.name}.gguf`), c.bytes);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('malformed corpus', () => {
  it('covers every failure class of the hardened reader', () => {
    expect(new Set(corpus.map((c) => c.code)).size).toBeGreaterThanOrEqual(24);
  });

  for (const c of corpus) {
    it(`${c.name}: inspect and plan refuse it with exit 2 (${c.code})`, async () => {
      for (const [cmd, extra] of [[inspect, []], [plan, ['--ram', '8G', '--disk-bw', '1G']]] as const) {
        const t0 = performance.now();
        const err = await runCommand(cmd, [join(dir, `${c.name}.gguf`), ...extra]).catch((e: unknown) => e);
        expect(performance.now() - t0).toBeLessThan(1000);
        expect(err).toBeInstanceOf(UsageError);
        expect((err as UsageError).exitCode).toBe(2);
        expect((err as UsageError).message).toMatch(new RegExp(`${c.name}\\.gguf: .+`));
        expect((err as UsageError).message).toMatch(/byte offset \d+/);
      }
    });
  }

  it('the built CLI exits 2 with a one-line message, under a 64 MiB heap', () => {
    const cli = join(packageRoot(), 'out', 'cli', 'ramforge.mjs');
    if (!existsSync(cli)) {
      if (process.env.CI === 'true') throw new Error(`${cli} is missing: npm test builds it first`);
      console.warn(`skipping: ${cli} not built (node scripts/build-cli.mjs)`);
      return;
    }
    for (const name of ['bad-magic', 'tensor-count', 'array-overflow', 'element-overflow', 'missing-tensor']) {
      const r = spawnSync(process.execPath, ['--max-old-space-size=64', cli, 'inspect', join(dir, `${name}.gguf`)], { encoding: 'utf8', timeout: 30_000 });
      expect(r.status, `${name}: ${r.stderr}`).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^ramforge inspect: .*byte offset \d+/);
    }
  });
});
