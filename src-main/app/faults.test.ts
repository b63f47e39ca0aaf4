// Faults injected into the app's service with a real worker and real files: the worker killed
// during load, prefill and decode (the service reports 'crashed' with the reason, and restart
// gives a working engine), the model file truncated while a streamed turn decodes (the service
// stays up and says what happened), and a report folder that cannot be written (a clear error,
// nothing partial, the turn's report still held).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppService } from './service.js';
import { workerHostFactory } from './host-factory.js';
import { defaultSettings } from './settings.js';
import { buildTurnReport } from './report.js';
import { cliBuiltOrSkip } from '../cli/built-cli.test-util.js';
import { synthesize } from '../synth/synthesize.js';
import type { ApiEvent, EngineState } from '../shared/api.js';
import { GREEDY } from '../shared/settings/run-settings.js';

let dir = '';
let small = '';
const cliBuilt = cliBuiltOrSkip('the app fault tests');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-app-faults-'));
  small = join(dir, 'small.gguf');
  await synthesize({ arch: 'llama', preset: 'small', type: 'Q4_0', seed: 2, out: small });
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function service(name: string): { svc: AppService; events: ApiEvent[]; next: (pred: (e: ApiEvent) => boolean) => Promise<ApiEvent> } {
  const svc = new AppService({ dataDir: join(dir, name), hostFactory: workerHostFactory(), buildReport: buildTurnReport });
  const events: ApiEvent[] = [];
  const waiters: { pred: (e: ApiEvent) => boolean; resolve: (e: ApiEvent) => void }[] = [];
  svc.onEvent((e) => {
    events.push(e);
    for (const w of [...waiters]) if (w.pred(e)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(e));
  });
  const next = (pred: (e: ApiEvent) => boolean) => new Promise<ApiEvent>((resolve) => waiters.push({ pred, resolve }));
  return { svc, events, next };
}

const user = (content: string) => [{ role: 'user' as const, content }];

async function restartsAndGenerates(svc: AppService, next: ReturnType<typeof service>['next']): Promise<void> {
  const state: EngineState = await svc.restart();
  expect(state.status).toBe('ready');
  const done = next((e) => e.type === 'generation-done' || e.type === 'generation-error');
  await svc.generate('after', user('Once upon a time'), GREEDY, 4);
  expect((await done).type).toBe('generation-done');
}

describe.skipIf(!cliBuilt)('app: the worker killed during a turn', () => {
  it('during load: crashed with the reason, and restart loads again', async () => {
    const { svc, next } = service('kill-load');
    try {
      // Without mmap the load reads the whole file with progress: the kill lands inside it.
      const loading = svc.load(small, { ...defaultSettings(), mmap: false, graphTrace: false });
      await next((e) => e.type === 'load-progress');
      await svc.killWorker();
      await expect(loading).rejects.toThrow();
      const s = await svc.getState();
      expect(s.status).toBe('crashed');
      expect(s.lastExit?.signal).toBe('SIGKILL');
      expect(s.message).toMatch(/^The inference worker was killed \(signal SIGKILL\)/);
      await restartsAndGenerates(svc, next);
    } finally {
      await svc.close();
    }
  });

  it('during prefill: the turn ends in an error, crashed, restart works', async () => {
    const { svc, events, next } = service('kill-prefill');
    try {
      await svc.load(small, { ...defaultSettings(), ctx: 2048, graphTrace: false });
      const failed = next((e) => e.type === 'generation-error');
      const prompt = Array.from({ length: 300 }, (_, i) => `word${i} and`).join(' ');
      // generate() resolves once the turn has started: the prompt of ~1000 tokens is decoding.
      await svc.generate('long', user(prompt), GREEDY, 8);
      await svc.killWorker();
      expect(((await failed) as { message: string }).message).toMatch(/SIGKILL/);
      expect(events.some((e) => e.type === 'token')).toBe(false);
      expect((await svc.getState()).status).toBe('crashed');
      await restartsAndGenerates(svc, next);
    } finally {
      await svc.close();
    }
  });

  it('during decode: the turn ends in an error after its first tokens, crashed, restart works', async () => {
    const { svc, events, next } = service('kill-decode');
    try {
      await svc.load(small, { ...defaultSettings(), graphTrace: false });
      const failed = next((e) => e.type === 'generation-error');
      const firstToken = next((e) => e.type === 'token');
      await svc.generate('decode', user('Once upon a time'), GREEDY, 400);
      await firstToken;
      await svc.killWorker();
      expect(((await failed) as { message: string }).message).toMatch(/SIGKILL/);
      expect(events.some((e) => e.type === 'generation-done')).toBe(false);
      expect((await svc.getState()).status).toBe('crashed');
      await restartsAndGenerates(svc, next);
    } finally {
      await svc.close();
    }
  });
});

describe.skipIf(!cliBuilt)('app: the model file truncated while a streamed turn decodes', () => {
  it('the turn ends in an error that says so; the service stays up and answers', async () => {
    const { svc, next } = service('truncate');
    const model = join(dir, 'trunc.gguf');
    copyFileSync(small, model);
    try {
      // 100 MiB for a 133 MiB model: the plan streams part of every layer.
      await svc.load(model, { ...defaultSettings(), ramBytes: 100 * 1024 * 1024, graphTrace: false });
      const failed = next((e) => e.type === 'generation-error');
      const firstToken = next((e) => e.type === 'token');
      await svc.generate('t', user('Once upon a time'), GREEDY, 400);
      await firstToken;
      truncateSync(model, 100_000_000);
      expect(((await failed) as { message: string }).message).toMatch(/the model file ended early|SIGBUS \(a memory-mapped file it was reading, the model, was truncated/);
      const s = await svc.getState();
      expect(['ready', 'crashed']).toContain(s.status);
      expect(await svc.listConversations()).toEqual([]);
    } finally {
      await svc.close();
    }
  });
});

describe.skipIf(!cliBuilt)('app: a report folder that cannot be written', () => {
  it('export fails with a clear error, writes nothing, and the report is still held', async () => {
    const { svc, next } = service('report');
    try {
      await svc.load(small, { ...defaultSettings(), graphTrace: false });
      const done = next((e) => e.type === 'generation-done');
      await svc.generate('r', user('Once upon a time'), GREEDY, 4);
      await done;
      const report = await svc.lastReport();
      expect(report).not.toBeNull();
      // The reports folder's place is taken by a file (the folder exists already: the last
      // turn's report is kept there).
      rmSync(join(dir, 'report', 'reports'), { recursive: true, force: true });
      writeFileSync(join(dir, 'report', 'reports'), 'not a folder');
      await expect(svc.exportReport(report)).rejects.toThrow(/EEXIST|ENOTDIR/);
      expect(readdirSync(join(dir, 'report')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
      expect(await svc.lastReport()).toBe(report);
    } finally {
      await svc.close();
    }
  });
});
