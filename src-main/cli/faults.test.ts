// Faults injected into real runs of the built CLI with a real worker and real files: the model
// file truncated while a streamed run decodes, report paths that cannot be written before or
// after the run, the worker killed during load, prefill and decode. Each ends with a clear
// message and the documented exit code (1 runtime failure, 2 bad usage), the text generated so
// far kept on stdout, and the CLI's own process ending normally: no hang, no crash.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdirSync, readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childPids, startCli, type CliResult } from './built-cli.test-util.js';
import { synthesize } from '../synth/synthesize.js';

let dir = '';
let small = '';
let tiny = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-faults-'));
  small = join(dir, 'small.gguf');
  tiny = join(dir, 'tiny.gguf');
  // 133 MiB: under --ram 100M the plan streams part of every layer.
  await synthesize({ arch: 'llama', preset: 'small', type: 'Q4_0', seed: 1, out: small });
  await synthesize({ arch: 'llama', preset: 'tiny', type: 'Q4_0', seed: 1, out: tiny });
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const STREAMED = ['-p', 'Once upon a time', '-n', '400', '--temperature', '0', '--ram', '100M'];

/** The CLI itself ended by exiting (not by a signal, not by the test's hang guard). */
function exitedNormally(r: CliResult): void {
  expect(r.signal, r.stderr).toBeNull();
}

describe('the model file truncated while a streamed run decodes', () => {
  for (const [where, bytes] of [
    ['inside the weights', 100_000_000],
    ['to its first page', 4096],
  ] as const) {
    it(`${where}: exit 1 with a clear error, the text so far kept`, async () => {
      const model = join(dir, `trunc-${bytes}.gguf`);
      copyFileSync(small, model);
      let cutAt: string | null = null;
      const r = await startCli(['run', model, ...STREAMED, '-q'], (o) => {
        if (cutAt === null && o.stdout.length > 0) {
          cutAt = o.stdout;
          truncateSync(model, bytes);
        }
      }).done;
      exitedNormally(r);
      expect(cutAt).not.toBeNull();
      expect(r.code, r.stderr).toBe(1);
      // The streamed reader finds the short file (a clean error), or a locked, memory-mapped
      // weight is touched first and the worker dies of SIGBUS: both are named.
      expect(r.stderr).toMatch(/^ramforge run: (the model file ended early|.*SIGBUS \(a memory-mapped file it was reading, the model, was truncated)/m);
      expect(r.stdout.startsWith(cutAt as unknown as string)).toBe(true);
    });
  }
});

describe('report paths that cannot be written', () => {
  it('a report path under a file is refused before the run (exit 2), nothing written', async () => {
    const file = join(dir, 'not-a-folder');
    writeFileSync(file, 'x');
    const r = await startCli(['run', tiny, '-p', 'hi', '-n', '4', '--report-json', join(file, 'r.json')]).done;
    exitedNormally(r);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^ramforge run: --report-json .*not-a-folder\/r\.json: .*not-a-folder is not a folder$/m);
    expect(r.stderr).not.toMatch(/loading/);
    expect(r.stdout).toBe('');
  });

  it('a read-only report folder is refused before the run (exit 2)', async (ctx) => {
    if (process.getuid?.() === 0) ctx.skip('running as root: permission bits do not stop root from writing');
    const ro = join(dir, 'read-only');
    mkdirSync(ro, { mode: 0o555 });
    const r = await startCli(['run', tiny, '-p', 'hi', '-n', '4', '--report-json', join(ro, 'r.json')]).done;
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot write in .*read-only/);
  });

  it('a report that cannot be written after the run: exit 1, the text and the other outputs kept, no partial file', async () => {
    const out = join(dir, 'outputs');
    mkdirSync(out);
    const report = join(out, 'sub', 'r.json');
    let swapped = false;
    const r = await startCli(['run', tiny, '-p', 'hi', '-n', '8', '--temperature', '0', '-q', '--tokens-json', join(out, 'tokens.json'), '--report-json', report], (o) => {
      // The folder checked before the run becomes a file while the run decodes.
      if (!swapped && o.stdout.length > 0) {
        swapped = true;
        writeFileSync(join(out, 'sub'), 'not a folder any more');
      }
    }).done;
    exitedNormally(r);
    expect(swapped).toBe(true);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/^ramforge run: --report-json .*sub\/r\.json was not written \(.*\); nothing partial is left there$/m);
    expect(r.stdout.trim().length).toBeGreaterThan(0);
    expect(existsSync(join(out, 'tokens.json'))).toBe(true);
    expect(readdirSync(out).sort()).toEqual(['sub', 'tokens.json']);
  });
});

describe('the worker killed (SIGKILL) during a run', () => {
  function killWorker(pid: number): boolean {
    const [worker] = childPids(pid);
    if (worker === undefined) return false;
    process.kill(worker, 'SIGKILL');
    return true;
  }

  it('during load: exit 1, the kill is named, nothing generated', async () => {
    let killed = false;
    // Without mmap the load reads the whole file, with progress: the kill lands inside it.
    const live = startCli(['run', small, '-p', 'hi', '-n', '8', '--no-mmap'], (o) => {
      if (!killed && /loading \[.*\]\s+\d+%/.test(o.stderr)) killed = killWorker(live.child.pid as number);
    });
    const r = await live.done;
    exitedNormally(r);
    expect(killed).toBe(true);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ramforge run: the inference worker ended with SIGKILL$/m);
    expect(r.stderr).not.toMatch(/ramforge: loaded in/);
    expect(r.stdout).toBe('');
  });

  it('during prefill: exit 1, the kill is named, nothing generated', async () => {
    let killed = false;
    const prompt = Array.from({ length: 300 }, (_, i) => `word${i} and`).join(' ');
    const live = startCli(['run', small, '-p', prompt, '-n', '8', '--ctx', '2048'], (o) => {
      // Loaded: the generate request follows at once, and a long prompt takes seconds to decode.
      if (!killed && /^ramforge: loaded in .*; decoding the prompt$/m.test(o.stderr)) killed = killWorker(live.child.pid as number);
    });
    const r = await live.done;
    exitedNormally(r);
    expect(killed).toBe(true);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ramforge run: the inference worker ended with SIGKILL$/m);
    expect(r.stdout).toBe('');
  });

  it('during decode: exit 1, the kill is named, the text so far kept', async () => {
    let killed = false;
    let before = '';
    const live = startCli(['run', small, '-p', 'Once upon a time', '-n', '400', '--temperature', '0', '-q'], (o) => {
      if (!killed && o.stdout.length > 0) {
        before = o.stdout;
        killed = killWorker(live.child.pid as number);
      }
    });
    const r = await live.done;
    exitedNormally(r);
    expect(killed).toBe(true);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ramforge run: the inference worker ended with SIGKILL$/m);
    expect(r.stdout.startsWith(before)).toBe(true);
    expect(r.stdout.length).toBeGreaterThan(0);
  });
});
