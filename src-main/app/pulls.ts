// Downloads started from the app: `ramforge pull URL --json` as a child process (the header it
// plans from is untrusted input, never parsed in the main process), its JSON progress lines
// turned into events, one download per URL at a time; cancelling stops the child and keeps the
// .part, so the next pull of the URL resumes.
import { spawn, type ChildProcess } from 'node:child_process';
import { totalmem } from 'node:os';
import { cliEntry, cleanCliMessage } from './cli-tools.js';
import { isModelUrl } from '../shared/remote/model-url.js';

export interface PullProgress {
  readonly url: string;
  readonly file: string;
  readonly done: number;
  readonly total: number | null;
  readonly rate: number | null;
}

export interface PullsOptions {
  /** The `ramforge` entry run with node (the package's bin by default; tests pass a stand-in). */
  readonly entry?: string;
  readonly onProgress: (p: PullProgress) => void;
}

function parseProgress(line: string, url: string): PullProgress | null {
  try {
    const v = JSON.parse(line) as { file?: unknown; done?: unknown; total?: unknown; rate?: unknown };
    if (typeof v.file !== 'string' || typeof v.done !== 'number') return null;
    return { url, file: v.file, done: v.done, total: typeof v.total === 'number' ? v.total : null, rate: typeof v.rate === 'number' ? v.rate : null };
  } catch {
    return null;
  }
}

export class ModelPulls {
  private readonly running = new Map<string, ChildProcess>();

  constructor(private readonly opts: PullsOptions) {}

  /** Downloads the model at `url` into RAMforge's models folder; resolves with `pull --json`'s document. */
  start(url: unknown, ramBytes: unknown): Promise<unknown> {
    if (typeof url !== 'string' || !isModelUrl(url) || url.length > 8192) return Promise.reject(new TypeError('url must be an http(s) URL'));
    if (ramBytes !== null && (typeof ramBytes !== 'number' || !Number.isSafeInteger(ramBytes) || ramBytes <= 0)) return Promise.reject(new TypeError('ramBytes must be a positive integer or null'));
    if (this.running.has(url)) return Promise.reject(new Error('this model is already being downloaded'));
    const env = { ...process.env };
    if (process.versions.electron) env.ELECTRON_RUN_AS_NODE = '1';
    // --force: the user asked for the download after seeing the plan, whatever its verdict.
    const args = [this.opts.entry ?? cliEntry(), 'pull', url, '--json', '--force', '--ram', String(ramBytes ?? totalmem())];
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.running.set(url, child);
    let out = '';
    let err = '';
    let pending = '';
    child.stdout.on('data', (b: Buffer) => {
      if (out.length < 1024 * 1024) out += b.toString('utf8');
    });
    child.stderr.on('data', (b: Buffer) => {
      pending += b.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const p = parseProgress(line, url);
        if (p) this.opts.onProgress(p);
        else if (err.length < 64 * 1024) err += line + '\n';
      }
    });
    return new Promise((resolve, reject) => {
      child.on('error', (e) => {
        this.running.delete(url);
        reject(new Error(`cannot run ramforge pull: ${e.message}`));
      });
      child.on('close', (code, signal) => {
        this.running.delete(url);
        if (code === 0) {
          try {
            return resolve(JSON.parse(out) as unknown);
          } catch {
            return reject(new Error('ramforge pull did not print JSON'));
          }
        }
        reject(new Error(signal ? 'the download was stopped; pulling the same URL again resumes it' : cleanCliMessage(err, 'pull')));
      });
    });
  }

  cancel(url: unknown): void {
    if (typeof url === 'string') this.running.get(url)?.kill('SIGTERM');
  }

  close(): void {
    for (const c of this.running.values()) c.kill('SIGTERM');
    this.running.clear();
  }
}
