// `ramforge plan URL`: the header comes over HTTP range requests from a loopback server, and
// the plan is the one the local copy of the same file gets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { command as plan } from './plan.js';
import { command as inspect } from './inspect.js';
import { ExitError, UsageError } from '../../shared/errors.js';
import { runCommand, writeSparseModel } from './run-command.test-util.js';
import { RangeServer } from '../../node/remote/range-server.test-util.js';
import { parseGgufHeader } from '../../shared/gguf/reader.js';
import { RANGE_STEP_BYTES } from '../../node/remote/remote-gguf.js';
import { directIoWorks } from '../../node/direct-io.js';
import { splitSpec } from '../../shared/gguf/split-set.test-util.js';
import { tinySpec } from '../../shared/gguf/tiny-models.test-util.js';
import type { MemoryPlan } from '../../shared/plan/plan-types.js';

const server = new RangeServer();
let dir = '';
let local = '';
let fileBytes = 0;
let dataOffset = 0;
const splitLocal: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-plan-url-'));
  local = join(dir, 'm.gguf');
  // A header of about 2 MiB (a 100k vocabulary) in front of ~60 MiB of Q4_0 weights.
  ({ fileBytes } = await writeSparseModel(local, { arch: 'qwen2', layers: 8, embd: 512, heads: 8, kvHeads: 2, ff: 1024, vocab: 100_000, matType: 2 }));
  const bytes = await readFile(local);
  dataOffset = parseGgufHeader(bytes, bytes.length).dataOffset;
  await server.start();
  server.files.set('/repo/resolve/main/m.gguf', { bytes, etag: 'abc' });
  server.files.set('/plain/m.gguf', { bytes, noRanges: true });
  server.redirects.set('/short/m.gguf', '/repo/resolve/main/m.gguf');
  const shards = splitSpec(tinySpec({ layers: 4, embd: 64, heads: 4, kvHeads: 2, ff: 128, vocab: 64 }), 3);
  for (const [i, b] of shards.entries()) {
    const name = `s-0000${i + 1}-of-00003.gguf`;
    splitLocal.push(join(dir, name));
    await writeFile(join(dir, name), b);
    server.files.set(`/split/${name}`, { bytes: b });
  }
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const FLAGS = ['--ram', '', '--disk-bw', '2G/s'];
const withRam = (ram: number) => FLAGS.map((f) => (f === '' ? String(ram) : f));

describe('ramforge plan URL', () => {
  it('prints the same plan as for the local file, from at most the header plus one range step', async () => {
    // The local plan budgets no read-ahead where direct I/O works; the URL plan assumes it does.
    expect(directIoWorks([local]), 'the temp folder must take O_DIRECT for the plans to be comparable').toBe(true);
    const tooSmall = JSON.parse((await runCommand(plan, [local, '--json', ...withRam(32 * 1024 ** 2)])).stdout) as MemoryPlan;
    expect(tooSmall.verdict).toBe('cannot-run');
    // The smallest cap that runs streams part of the model.
    const between = tooSmall.quantities.minimumRamBytes.value as number;
    for (const ram of [between, 8 * 1024 ** 3, 32 * 1024 ** 2]) {
      const a = await runCommand(plan, [local, '--json', ...withRam(ram)]);
      server.reset();
      const b = await runCommand(plan, [server.url('/repo/resolve/main/m.gguf'), '--json', ...withRam(ram)]);
      expect(b.code).toBe(0);
      expect(b.stdout).toBe(a.stdout);
      const seen = server.requestsFor('/repo/');
      expect(seen.every((r) => r.status === 206)).toBe(true);
      expect(seen.length).toBeLessThanOrEqual(Math.ceil(dataOffset / RANGE_STEP_BYTES) + 1);
      expect(server.bytesSent()).toBeLessThanOrEqual(dataOffset + RANGE_STEP_BYTES);
    }
    const human = await runCommand(plan, [server.url('/short/m.gguf'), ...withRam(between)]);
    const humanLocal = await runCommand(plan, [local, ...withRam(between)]);
    expect(human.stdout).toBe(humanLocal.stdout);
    expect(human.stdout).toMatch(/Verdict: OUT-OF-CORE/);
  });

  it('a split set named by any shard URL plans like the local split set', async () => {
    const a = await runCommand(plan, [splitLocal[0] as string, '--json', ...withRam(64 * 1024 ** 2)]);
    const b = await runCommand(plan, [server.url('/split/s-00003-of-00003.gguf'), '--json', ...withRam(64 * 1024 ** 2)]);
    expect(b.stdout).toBe(a.stdout);
  });

  it('a server that ignores Range is a runtime failure (exit 1) that says so, and nothing big is downloaded', async () => {
    server.reset();
    const e = await runCommand(plan, [server.url('/plain/m.gguf'), ...withRam(8 * 1024 ** 3)]).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ExitError);
    expect((e as ExitError).exitCode).toBe(1);
    expect((e as Error).message).toMatch(/does not support range requests/);
    await new Promise((r) => setTimeout(r, 100));
    expect(server.bytesSent()).toBeLessThan(fileBytes / 4);
  });

  it('nothing at the URL, or not a URL we take, is bad input (exit 2)', async () => {
    const e1 = await runCommand(plan, [server.url('/nothing.gguf'), ...withRam(8 * 1024 ** 3)]).catch((x: unknown) => x);
    expect(e1).toBeInstanceOf(UsageError);
    expect((e1 as Error).message).toMatch(/not found \(HTTP 404\)/);
    const e2 = await runCommand(plan, ['http://[bad/m.gguf', ...withRam(8 * 1024 ** 3)]).catch((x: unknown) => x);
    expect(e2).toBeInstanceOf(UsageError);
  });

  it('inspect URL shows the same model as inspect of the local file', async () => {
    const a = JSON.parse((await runCommand(inspect, [local, '--json'])).stdout) as { shards: { path: string }[]; input: string };
    const b = JSON.parse((await runCommand(inspect, [server.url('/repo/resolve/main/m.gguf'), '--json'])).stdout) as typeof a;
    expect(b.shards[0]?.path).toBe(server.url('/repo/resolve/main/m.gguf'));
    const strip = (x: typeof a) => ({ ...x, input: '', shards: x.shards.map((s) => ({ ...s, path: '' })) });
    expect(strip(b)).toEqual(strip(a));
  });
});
