// Model discovery for the app. Headers are untrusted input, so the list comes from
// `ramforge models --json` run as a child process (never parsed in the main process). The
// folders the user adds are kept in the data folder; every searched folder that exists is
// watched, and a change (a model pulled, a file copied in, a folder removed) is announced once
// things settle, so the window refreshes its list.
import { watch, type FSWatcher } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { totalmem } from 'node:os';
import { runCliJson } from './cli-tools.js';
import { writeJsonAtomic } from '../node/atomic-write.js';

export const MAX_MODEL_FOLDERS = 32;
const DEFAULT_DEBOUNCE_MS = 1000;

export interface DiscoveryOptions {
  readonly dataDir: string;
  /** Runs `ramforge` with these arguments and returns its JSON (a child process by default). */
  readonly run?: (args: string[]) => Promise<unknown>;
  /** Called (debounced) when a watched folder changes. */
  readonly onChange: () => void;
  readonly debounceMs?: number;
}

/** `ramforge models --json` plus the folders the user added (present or not). */
export type DiscoveryAnswer = Record<string, unknown> & { folders: string[] };

export class ModelDiscovery {
  private watchers: FSWatcher[] = [];
  private watchedKey = '';
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private readonly file: string;

  constructor(private readonly opts: DiscoveryOptions) {
    this.file = join(opts.dataDir, 'model-folders.json');
  }

  async folders(): Promise<string[]> {
    try {
      const v: unknown = JSON.parse(await readFile(this.file, 'utf8'));
      return Array.isArray(v) ? v.filter((p): p is string => typeof p === 'string' && isAbsolute(p)).slice(0, MAX_MODEL_FOLDERS) : [];
    } catch {
      return [];
    }
  }

  async setFolders(paths: unknown): Promise<string[]> {
    if (!Array.isArray(paths) || paths.length > MAX_MODEL_FOLDERS) throw new TypeError(`folders must be a list of at most ${MAX_MODEL_FOLDERS} paths`);
    const out: string[] = [];
    for (const p of paths) {
      if (typeof p !== 'string' || p.length === 0 || p.length > 4096 || !isAbsolute(p)) throw new TypeError('each folder must be an absolute path');
      const r = resolve(p);
      if (!out.includes(r)) out.push(r);
    }
    await writeJsonAtomic(this.file, out);
    return out;
  }

  /** Every model found, planned for `ramBytes` (this machine's RAM when null). */
  async list(ramBytes: unknown): Promise<DiscoveryAnswer> {
    if (ramBytes !== null && (typeof ramBytes !== 'number' || !Number.isSafeInteger(ramBytes) || ramBytes <= 0)) throw new TypeError('ramBytes must be a positive integer or null');
    const folders = await this.folders();
    const existing: string[] = [];
    for (const f of folders) if (await stat(f).then((s) => s.isDirectory(), () => false)) existing.push(f);
    const args = ['models', '--json', '--ram', String(ramBytes ?? totalmem()), ...existing.flatMap((d) => ['--dir', d])];
    const report = (await (this.opts.run ?? ((a: string[]) => runCliJson(a, { timeoutMs: 120_000 })))(args)) as Record<string, unknown>;
    const roots = Array.isArray(report?.roots) ? (report.roots as { path?: unknown; present?: unknown }[]) : [];
    this.watch(roots.filter((r) => r.present === true && typeof r.path === 'string').map((r) => r.path as string));
    return { ...report, folders };
  }

  private watch(paths: string[]): void {
    const key = [...paths].sort().join('\n');
    if (this.closed || key === this.watchedKey) return;
    this.unwatch();
    this.watchedKey = key;
    for (const p of paths) {
      try {
        // Recursive: a model lands in a subfolder (Ollama's blobs, a Hugging Face snapshot).
        const w = watch(p, { recursive: true, persistent: false }, () => this.changed());
        w.on('error', () => w.close());
        this.watchers.push(w);
      } catch {
        // No watch (inotify limits, a folder gone): the list still refreshes on demand.
      }
    }
  }

  private changed(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.closed) this.opts.onChange();
    }, this.opts.debounceMs ?? DEFAULT_DEBOUNCE_MS);
  }

  private unwatch(): void {
    for (const w of this.watchers) w.close();
    this.watchers = [];
    this.watchedKey = '';
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.unwatch();
  }
}
