// The real `ramforge serve` (the built CLI, out/cli) as a child process: `--open` puts nothing
// on a command line that is worth anything once the browser has logged in, and the server
// survives the fuzzer end to end — it never exits, every malformed request gets a 4xx or a
// close, and its memory stays bounded across rounds.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath } from '../cli/built-cli.test-util.js';
import { WebSocket } from 'ws';
import { codeOf, exchange, http, login } from './test-client.test-util.js';
import { fuzz, summary } from './fuzz-cases.test-util.js';

let dir = '';

interface Serve {
  child: ChildProcess;
  url: string;
  port: number;
  out: () => string;
}

async function serve(args: string[], env: NodeJS.ProcessEnv = {}, nodeArgs: string[] = []): Promise<Serve> {
  const child = spawn(process.execPath, [...nodeArgs, cliPath(), 'serve', '--port', '0', '--renderer', join(dir, 'renderer'), ...args], {
    env: { ...process.env, RAMFORGE_DATA: join(dir, 'data'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no URL in 30 s:\n${out}`)), 30_000);
    child.stdout?.on('data', () => {
      const m = /RAMforge is serving on (\S+)/.exec(out);
      if (m) (clearTimeout(t), resolve(m[1] as string));
    });
    child.once('exit', (c) => (clearTimeout(t), reject(new Error(`serve exited (${c}):\n${out}`))));
  });
  return { child, url, port: Number(new URL(url).port), out: () => out };
}

async function stop(s: Serve): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const gone = new Promise((r) => s.child.once('exit', r));
  s.child.kill('SIGTERM');
  await gone;
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? NaN) / 1024;
}

interface Memory {
  heapUsed: number;
  external: number;
  rss: number;
}

/**
 * The server's memory after a full garbage collection, through the inspector (loopback): RSS
 * alone swings by a hundred MiB with the transient buffers of 16 MiB messages and is not
 * returned to the system at once, so what is kept is judged on the collected heap.
 */
async function collectedMemory(inspectorUrl: string): Promise<Memory> {
  const ws = new WebSocket(inspectorUrl);
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  let next = 0;
  const call = (method: string, params: object = {}): Promise<{ result?: { value?: string } }> =>
    new Promise((resolve) => {
      const id = ++next;
      const onMsg = (d: Buffer): void => {
        const m = JSON.parse(d.toString()) as { id?: number; result?: { result?: { value?: string } } };
        if (m.id === id) (ws.off('message', onMsg), resolve(m.result ?? {}));
      };
      ws.on('message', onMsg);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await call('HeapProfiler.collectGarbage');
  const r = (await call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true })) as { result?: { value?: string } };
  ws.close();
  const m = JSON.parse(r.result?.value ?? '{}') as { heapUsed: number; external: number; rss: number };
  const mib = (x: number): number => x / 2 ** 20;
  return { heapUsed: mib(m.heapUsed), external: mib(m.external), rss: mib(m.rss) };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-serve-cli-'));
  await mkdir(join(dir, 'renderer', 'assets'), { recursive: true });
  await writeFile(join(dir, 'renderer', 'index.html'), '<!doctype html><title>x</title>');
  await writeFile(join(dir, 'renderer', 'assets', 'a.js'), 'console.log(1)');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('ramforge serve (built CLI)', () => {
  it('--open gives the browser its own one-time code: useless once traded, and the printed one still works', async () => {
    const bin = join(dir, 'bin');
    await mkdir(bin, { recursive: true });
    const log = join(dir, 'opened.txt');
    await writeFile(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${log}'\n`);
    await chmod(join(bin, 'xdg-open'), 0o755);
    const s = await serve(['--open'], { PATH: `${bin}:${process.env.PATH ?? ''}` });
    try {
      let opened = '';
      for (let i = 0; i < 200 && !opened; i++) {
        opened = await readFile(log, 'utf8').catch(() => '');
        if (!opened) await new Promise((r) => setTimeout(r, 25));
      }
      // What any local user could read from /proc/PID/cmdline of xdg-open: an address with a code only.
      expect(opened).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${s.port}/\\?code=[A-Za-z0-9_-]+$`));
      expect(codeOf(opened)).not.toBe(codeOf(s.url));
      expect((await exchange(s.port, codeOf(opened))).status).toBe(200); // the browser logs in
      expect((await exchange(s.port, codeOf(opened))).status).toBe(403); // anyone after it gets nothing
      expect(readFileSync(`/proc/${s.child.pid}/cmdline`, 'utf8')).not.toContain(codeOf(s.url));
      expect((await exchange(s.port, codeOf(s.url))).status).toBe(200);
      expect(s.out()).toMatch(/logs one browser tab in, once, within 5 minutes/);
    } finally {
      await stop(s);
    }
  });

  it('survives the fuzzer: never exits, no 5xx, exactly the right upgrades, memory bounded across rounds', async () => {
    const s = await serve([], {}, ['--inspect=127.0.0.1:0']);
    try {
      const inspector = /Debugger listening on (ws:\/\/\S+)/.exec(s.out())?.[1] as string;
      expect(inspector).toBeTruthy();
      const credential = await login(s.port, s.url);
      const target = { port: s.port, credential };
      const t0 = performance.now();
      // A warm-up round first, so that what is made once (code, pools, caches) is not counted as growth.
      const warm = await fuzz(target, 1, { http: 300, upgrade: 150, frame: 150, api: 300 }, { safeOnly: true });
      const m0 = await collectedMemory(inspector);
      const a = await fuzz(target, 2, { http: 1200, upgrade: 600, frame: 600, api: 1000 }, { safeOnly: true });
      const rssA = rssMiB(s.child.pid as number);
      const m1 = await collectedMemory(inspector);
      const b = await fuzz(target, 3, { http: 1200, upgrade: 600, frame: 600, api: 1000 }, { safeOnly: true });
      const rssB = rssMiB(s.child.pid as number);
      const m2 = await collectedMemory(inspector);
      const secs = (performance.now() - t0) / 1000;
      const all = [...warm, ...a, ...b];
      const f = (x: number): string => x.toFixed(1);
      process.stdout.write(
        `server fuzz (ramforge serve child): ${all.length} cases in ${secs.toFixed(1)} s\n` +
          `  server heap after GC ${f(m0.heapUsed)} -> ${f(m1.heapUsed)} -> ${f(m2.heapUsed)} MiB (warm-up, round 1, round 2); ` +
          `external ${f(m0.external)} -> ${f(m1.external)} -> ${f(m2.external)} MiB; RSS ${f(m0.rss)} -> ${f(rssA)} / ${f(m1.rss)} -> ${f(rssB)} / ${f(m2.rss)} MiB (end of round / after GC)\n` +
          `  ${summary(all)}\n`,
      );
      const problems = all.filter((o) => o.problem !== null);
      expect(problems.slice(0, 10).map((p) => `${p.kind} ${p.problem}: ${p.detail}`)).toEqual([]);
      expect(s.child.exitCode).toBeNull();
      expect(s.child.signalCode).toBeNull();
      // Bounded: 3,400 more cases keep nothing (a few MiB of noise: JIT code, lazily made objects).
      expect(m2.heapUsed - m1.heapUsed).toBeLessThan(8);
      expect(m2.external - m1.external).toBeLessThan(8);
      expect(Math.max(rssA, rssB, m2.rss)).toBeLessThan(600);
      expect((await http(s.port, '/')).status).toBe(200);
      expect(await login(s.port, s.url).catch((e: Error) => e.message)).toMatch(/403/); // the printed code was spent
    } finally {
      await stop(s);
    }
  });
});
