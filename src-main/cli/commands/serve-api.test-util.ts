// Test helpers for `ramforge serve --api` run as a user would (the built CLI, a real worker):
// synthetic models written into a test's folder, the server started and waited for until its
// model is loaded, and stopped.
import { expect } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { cliPath, runCli } from '../built-cli.test-util.js';

export interface Served {
  child: ChildProcess;
  /** http://127.0.0.1:PORT/v1 */
  url: string;
  port: number;
  out: () => string;
}

/** A tiny synthetic model at DIR/NAME (`args`: more `ramforge synth` flags). */
export function synthModel(dir: string, name: string, args: string[]): string {
  const path = join(dir, name);
  const r = runCli(['synth', '--preset', 'tiny', '--out', path, '--quiet', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return path;
}

/**
 * Starts `ramforge serve --api` (its data under DIR/data) and waits until the model is loaded
 * (/health answers 200); `whileLoading` runs as soon as the API listens, before that wait.
 */
export async function serveApi(dir: string, args: string[], whileLoading?: (port: number) => Promise<void>): Promise<Served> {
  const child = spawn(process.execPath, [cliPath(), 'serve', '--api', '--no-ui', '--api-port', '0', ...args], {
    env: { ...process.env, RAMFORGE_DATA: join(dir, 'data'), RAMFORGE_API_KEY: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no API URL in 60 s:\n${out}`)), 60_000);
    const look = (): void => {
      const m = /OpenAI-compatible API on (\S+)/.exec(out);
      if (m) (clearTimeout(t), resolve(m[1] as string));
    };
    child.stdout?.on('data', look);
    child.once('exit', (c) => (clearTimeout(t), reject(new Error(`serve exited (${c}):\n${out}`))));
  });
  const port = Number(new URL(url).port);
  await whileLoading?.(port);
  for (let i = 0; i < 600; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status === 200, () => false);
    if (ok) return { child, url, port, out: () => out };
    if (/could not load/.test(out)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the model did not load:\n${out}`);
}

export async function stopServed(s: Served | undefined): Promise<void> {
  if (!s || s.child.exitCode !== null || s.child.signalCode !== null) return;
  const gone = new Promise((r) => s.child.once('exit', r));
  s.child.kill('SIGTERM');
  await gone;
}

/** A test file's servers stopped and its folder (models, data) removed. */
export async function stopAllServed(dir: string | undefined, served: (Served | undefined)[]): Promise<void> {
  await Promise.all(served.map(stopServed));
  if (dir) await rm(dir, { recursive: true, force: true });
}
