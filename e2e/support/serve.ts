// Starts `ramforge serve --port 0` (the real CLI) with a private data folder, reads the URL it
// prints, and stops it (SIGTERM, then SIGKILL) at the end.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, ROOT } from './env.js';

export interface Served {
  /** The printed login address: its one-time code works once (the first page.goto). */
  url: string;
  origin: string;
  dataDir: string;
  log: () => string;
  stop(): Promise<void>;
}

/** `env` is added to this process's environment for the server (a fake HOME for model discovery). */
export async function startServe(extraArgs: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ramforge-e2e-data-'));
  const child: ChildProcess = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...extraArgs], {
    cwd: ROOT,
    env: { ...process.env, ...env, RAMFORGE_DATA: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`ramforge serve printed no URL in 60 s:\n${out}`)), 60_000);
    const check = (): void => {
      const m = /RAMforge is serving on (http:\/\/127\.0\.0\.1:\d+\/\?code=\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`ramforge serve exited (${code}) before printing a URL:\n${out}`));
    });
  });
  return {
    url,
    origin: new URL(url).origin,
    dataDir,
    log: () => out,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(t);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
