// Starts `ramforge serve --port 0` (the real CLI) with a private data folder, reads the URL it
// prints, and stops it (SIGTERM, then SIGKILL) at the end — or crashes it (SIGKILL to it and its
// worker at once, as a power cut would), leaving the data folder for the next start.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
  /** kill -9 of the server and every process under it (its worker); the data folder stays. */
  crash(): Promise<void>;
}

/** The process and all its descendants (Linux /proc), parents first. */
function processTree(pid: number): number[] {
  const out = [pid];
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tasks) {
    let kids = '';
    try {
      kids = readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const k of kids.split(/\s+/).filter(Boolean)) out.push(...processTree(Number(k)));
  }
  return out;
}

/**
 * `env` is added to this process's environment for the server (a fake HOME for model discovery).
 * `dataDir`: a data folder the caller owns (kept at stop: a restart on it reads what the last run left).
 */
export async function startServe(extraArgs: string[] = [], env: NodeJS.ProcessEnv = {}, opts: { dataDir?: string } = {}): Promise<Served> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'ramforge-e2e-data-'));
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
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
    crash: async () => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`ramforge serve had already exited:\n${out}`);
      const exited = new Promise((r) => child.once('exit', r));
      const tree = processTree(child.pid as number);
      for (const pid of tree) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      await exited;
    },
  };
}
