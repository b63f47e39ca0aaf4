// The app's side of "which models are there": the demo model and any pinned ones, the recently
// used, the discovered (Ollama, LM Studio, Hugging Face, folders), downloads under way, and the
// out-of-process inspect and plan of a file. No worker is involved.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { ApiEvent, ModelRef, RunSettings } from '../shared/api.js';
import { runCliJson } from './cli-tools.js';
import { DEMO_MODEL_FILE } from './demo-model.js';
import { ModelDiscovery } from './discovery.js';
import { ModelPulls } from './pulls.js';
import { RecentModels, modelRef } from './recent-models.js';
import { asPrepared, checkSettings, planArgs, prepareArgs, type PreparedAppLoad } from './settings.js';
import { checkString } from './validate.js';

export interface ModelLibraryOptions {
  dataDir: string;
  inspectModel?: (path: string) => Promise<unknown>;
  planModel?: (path: string, settings: RunSettings) => Promise<unknown>;
  /** `ramforge plan --measure-compute` (a child process by default; tests replace it). */
  measureCompute?: (path: string, settings: RunSettings) => Promise<unknown>;
  /** `ramforge prepare-load`'s JSON for a load (a child process by default; tests replace it). */
  prepareModel?: (path: string, settings: RunSettings) => Promise<unknown>;
  /** `ramforge devices --json` (a child process by default; tests replace it). */
  listDevices?: () => Promise<unknown>;
  pinnedModels?: () => string[];
  discover?: (args: string[]) => Promise<unknown>;
  cliEntry?: string;
  emit: (e: ApiEvent) => void;
}

export class ModelLibrary {
  private readonly recent: RecentModels;
  private readonly discovery: ModelDiscovery;
  private readonly pulls: ModelPulls;

  constructor(private readonly opts: ModelLibraryOptions) {
    this.recent = new RecentModels(join(opts.dataDir, 'recent-models.json'));
    this.discovery = new ModelDiscovery({ dataDir: opts.dataDir, ...(opts.discover ? { run: opts.discover } : {}), onChange: () => opts.emit({ type: 'models-changed' }) });
    this.pulls = new ModelPulls({ ...(opts.cliEntry ? { entry: opts.cliEntry } : {}), onProgress: (p) => opts.emit({ type: 'pull-progress', ...p }) });
  }

  async list(): Promise<ModelRef[]> {
    const pinned = [...(this.opts.pinnedModels?.() ?? []), join(this.opts.dataDir, 'models', DEMO_MODEL_FILE)];
    const out: ModelRef[] = [];
    const seen = new Set<string>();
    for (const p of pinned) {
      const r = seen.has(p) ? null : await modelRef(p);
      if (r) {
        out.push(r);
        seen.add(p);
      }
    }
    for (const r of await this.recent.list()) if (!seen.has(r.path)) (seen.add(r.path), out.push(r));
    return out;
  }

  /** A model was inspected or loaded: it is listed among the recent ones. */
  used(path: string): Promise<void> {
    return this.recent.add(path).catch(() => {});
  }

  async inspect(path: unknown): Promise<unknown> {
    const p = checkString(path, 'path');
    const v = await (this.opts.inspectModel ?? defaultInspect)(p);
    await this.used(p);
    return v;
  }

  /** Inspect bytes sent by the client: the bytes go to a private temp file the reader reads. */
  async inspectUpload(name: unknown, size: unknown, head: unknown): Promise<unknown> {
    const n = basename(checkString(name, 'name', 255)).replace(/[^A-Za-z0-9._-]/g, '_');
    if (!(head instanceof Uint8Array)) throw new TypeError('head must be bytes');
    if (typeof size !== 'number' || size !== head.length) {
      throw new TypeError('inspectUpload needs the whole file (size must equal the bytes sent); large files are uploaded with PUT /upload');
    }
    const dir = await mkdtemp(join(tmpdir(), 'ramforge-inspect-'));
    try {
      const p = join(dir, n || 'upload.gguf');
      await writeFile(p, head);
      return await (this.opts.inspectModel ?? defaultInspect)(p);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** The plan of a checked path and settings, made out of process by the hardened reader. */
  planChecked(path: string, s: RunSettings): Promise<unknown> {
    return (this.opts.planModel ?? defaultPlan)(path, s);
  }

  /**
   * The stream schedule's compute for these settings measured on the model's shadow and cached
   * (`ramforge plan --measure-compute`), so that the plans of its loads predict with it, as
   * `bench` does before its runs.
   */
  measureCompute(path: string, s: RunSettings): Promise<unknown> {
    return (this.opts.measureCompute ?? defaultMeasure)(path, s);
  }

  /** The load of a checked path and settings, prepared out of process exactly as `ramforge run` prepares its own. */
  async prepareLoad(path: string, s: RunSettings): Promise<PreparedAppLoad> {
    return asPrepared(await (this.opts.prepareModel ?? defaultPrepare)(path, s), path);
  }

  /** The GPUs, probed out of process: a Vulkan driver that crashes takes only the child with it. */
  devices(): Promise<unknown> {
    return (this.opts.listDevices ?? (() => runCliJson(['devices', '--json'])))();
  }

  plan(path: unknown, settings: unknown): Promise<unknown> {
    return this.planChecked(checkString(path, 'path'), checkSettings(settings));
  }

  discover(ramBytes: unknown): Promise<unknown> {
    return this.discovery.list(ramBytes);
  }

  setFolders(paths: unknown): Promise<string[]> {
    return this.discovery.setFolders(paths);
  }

  pull(url: unknown, ramBytes: unknown): Promise<unknown> {
    return this.pulls.start(url, ramBytes);
  }

  cancelPull(url: unknown): void {
    this.pulls.cancel(url);
  }

  close(): void {
    this.discovery.close();
    this.pulls.close();
  }
}

function defaultInspect(path: string): Promise<unknown> {
  // `--` first: a path that begins with '-' is a file, not a flag.
  return runCliJson(['inspect', '--json', '--', path]);
}

function defaultPlan(path: string, s: RunSettings): Promise<unknown> {
  return runCliJson(planArgs(path, s));
}

function defaultMeasure(path: string, s: RunSettings): Promise<unknown> {
  const args = planArgs(path, s);
  args.splice(args.indexOf('--'), 0, '--measure-compute');
  // The shadow decodes a few tokens of the model: up to minutes on a large one.
  return runCliJson(args, { timeoutMs: 600_000 });
}

function defaultPrepare(path: string, s: RunSettings): Promise<unknown> {
  return runCliJson(prepareArgs(path, s));
}
