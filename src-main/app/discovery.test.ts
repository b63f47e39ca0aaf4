import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { ModelDiscovery } from './discovery.js';
import { AppService } from './service.js';
import { FakeHost } from './fake-host.test-util.js';
import type { ApiEvent } from '../shared/api.js';
import { defaultSettings } from './settings.js';

let dir = '';
let watched = '';
let calls: string[][] = [];
let changes = 0;
let d: ModelDiscovery;

const fakeRun = async (args: string[]) => {
  calls.push(args);
  return { schemaVersion: 1, budget: null, roots: [{ source: 'ollama', path: watched, present: true }, { source: 'lmstudio', path: join(dir, 'none'), present: false }], models: [] };
};

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-app-discovery-'));
  watched = join(dir, 'store');
  await mkdir(watched);
  calls = [];
  changes = 0;
  d = new ModelDiscovery({ dataDir: dir, run: fakeRun, onChange: () => changes++, debounceMs: 50 });
});
afterEach(async () => {
  d.close();
  await rm(dir, { recursive: true, force: true });
});

const until = async (pred: () => boolean, ms = 5000) => {
  const t0 = Date.now();
  while (!pred()) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('app model discovery', () => {
  it('runs `ramforge models --json` for the budget (the machine RAM when none) with the added folders that exist', async () => {
    const added = join(dir, 'added');
    await mkdir(added);
    expect(await d.setFolders([added, join(dir, 'gone'), added])).toEqual([added, join(dir, 'gone')]);
    const r = await d.list(8 * 1024 ** 3);
    expect(calls[0]).toEqual(['models', '--json', '--ram', String(8 * 1024 ** 3), '--dir', added]);
    expect(r.folders).toEqual([added, join(dir, 'gone')]);
    await d.list(null);
    expect(calls[1]?.[3]).toBe(String(totalmem()));
  });

  it('refuses bad folders and budgets', async () => {
    await expect(d.setFolders(['relative/path'])).rejects.toThrow(/absolute/);
    await expect(d.setFolders('x')).rejects.toThrow(/list/);
    await expect(d.list(-1)).rejects.toThrow(/positive integer/);
  });

  it('announces a change in a searched folder once things settle', async () => {
    await d.list(null);
    await writeFile(join(watched, 'a.gguf'), 'x');
    await writeFile(join(watched, 'b.gguf'), 'y');
    await until(() => changes > 0);
    await new Promise((r) => setTimeout(r, 200));
    expect(changes).toBe(1);
  });

  it('through the service: discoverModels and models-changed events', async () => {
    const svc = new AppService({ dataDir: dir, hostFactory: async (o) => new FakeHost(o), discover: fakeRun });
    const events: ApiEvent[] = [];
    svc.onEvent((e) => events.push(e));
    try {
      const r = (await svc.discoverModels(null)) as { folders: string[]; roots: unknown[] };
      expect(r.folders).toEqual([]);
      expect(r.roots).toHaveLength(2);
      await mkdir(join(watched, 'sub'));
      await writeFile(join(watched, 'sub', 'new.gguf'), 'x');
      await until(() => events.some((e) => e.type === 'models-changed'));
      await expect(svc.load('https://example.invalid/m.gguf', defaultSettings())).rejects.toThrow(/can be planned but not loaded: download it first/);
    } finally {
      await svc.close();
    }
  });
});
