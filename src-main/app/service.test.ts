import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppService } from './service.js';
import { FakeHost, fakePrepare, fakeReport, waitUntil } from './fake-host.test-util.js';
import { defaultSettings } from './settings.js';
import type { ApiEvent } from '../shared/api.js';
import type { LoadParams } from '../shared/worker-protocol.js';
import { DEFAULT_SAMPLING } from '../shared/settings/run-settings.js';

let dir: string;
let hosts: FakeHost[];
let svc: AppService;
let events: ApiEvent[];

/** The fields of a `ramforge plan --json` answer the service reads. */
function fakePlan(tiers: ('pinned' | 'streamed')[]) {
  const out = tiers.includes('streamed');
  return {
    layers: tiers.map((tier, index) => ({ index, bytes: 100, kvBytes: 1, tier, streamedBytes: tier === 'streamed' ? 100 : 0 })),
    input: { ctx: 1024, ubatch: 32, threads: 2 },
    verdict: out ? 'out-of-core' : 'fits',
    stream: out ? { tensors: ['blk.1.ffn_up.weight'], unitBytes: 100, windowBytes: 200, readaheadBytes: 0, headroomBytes: 4 } : null,
    quantities: { computeBufferBytes: { value: 1000, formula: 'f' } },
  };
}

const waitFor = (pred: () => boolean, ms = 3000): Promise<void> => waitUntil(pred, ms);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-app-'));
  hosts = [];
  svc = new AppService({
    dataDir: dir,
    hostFactory: async (o) => {
      const h = new FakeHost(o);
      hosts.push(h);
      return h;
    },
    inspectModel: async (p) => ({ path: p }),
    planModel: async () => ({}),
    prepareModel: fakePrepare(),
    buildReport: fakeReport,
  });
  events = [];
  svc.onEvent((e) => events.push(e));
});

afterEach(async () => {
  await svc.close();
  await rm(dir, { recursive: true, force: true });
});

const user = [{ role: 'user' as const, content: 'hi' }];

describe('AppService', () => {
  it('loads a model, reports progress and becomes ready', async () => {
    const info = await svc.load('/m/a.gguf', defaultSettings());
    expect(info.name).toBe('fake');
    expect((await svc.getState()).status).toBe('ready');
    expect(events.filter((e) => e.type === 'load-progress').map((e) => (e as { fraction: number }).fraction)).toEqual([0.5, 1]);
    expect((await svc.listModels()).length).toBe(0); // neither the model nor a demo model exists on disk
  });

  it('never loads a file still being written: a partial download, or a path a guard says is arriving', async () => {
    await expect(svc.load('/m/.a.gguf.123.0badcafe.part', defaultSettings())).rejects.toThrow(/still being written/);
    await expect(svc.load('/m/b.gguf.crdownload', defaultSettings())).rejects.toThrow(/still being written/);
    svc.guardWrites((p) => p === '/m/arriving.gguf');
    await expect(svc.load('/m/arriving.gguf', defaultSettings())).rejects.toThrow(/still being written/);
    expect(hosts.length).toBe(0);
    await svc.load('/m/a.gguf', defaultSettings());
    expect(hosts.length).toBe(1);
  });

  it('streams tokens and samples, then reports done and keeps the report', async () => {
    await svc.load('/m/a.gguf', defaultSettings());
    await svc.generate('r1', user, DEFAULT_SAMPLING, 5);
    await waitFor(() => events.some((e) => e.type === 'generation-done'));
    const toks = events.filter((e) => e.type === 'token');
    expect(toks.length).toBe(5);
    expect(events.some((e) => e.type === 'sample')).toBe(true);
    expect((await svc.getState()).status).toBe('ready');
    expect(await svc.lastReport()).toMatchObject({ schema_version: 1 });
  });

  it('with a RAM budget, loads with the plan\'s tiers and streams when a layer does not fit', async () => {
    const svc2 = new AppService({
      dataDir: dir,
      hostFactory: async (o) => {
        const h = new FakeHost(o);
        hosts.push(h);
        return h;
      },
      planModel: async () => fakePlan(['pinned', 'streamed']),
      prepareModel: fakePrepare(fakePlan(['pinned', 'streamed'])),
    });
    await svc2.load('/m/a.gguf', { ...defaultSettings(), ramBytes: 300 * 2 ** 20 });
    // The plan's shape (ctx, micro-batch, threads) and streaming split reach the worker.
    expect(hosts[0]?.loads[0]).toMatchObject({
      tiers: ['pinned', 'streamed'],
      policy: 'stream',
      ramBytes: 300 * 2 ** 20,
      ctx: 1024,
      batch: 32,
      threads: 2,
      repack: false,
      stream: { tensors: ['blk.1.ffn_up.weight'], computeReserveBytes: 1000 },
    });
    await svc2.load('/m/a.gguf', { ...defaultSettings(), ramBytes: 300 * 2 ** 20, policy: 'conservative' });
    expect(hosts[1]?.loads[0]).toMatchObject({ tiers: ['pinned', 'streamed'], policy: 'conservative' });
    await svc2.load('/m/a.gguf', defaultSettings());
    expect(hosts[2]?.loads[0]?.tiers).toBeUndefined();
    await svc2.close();
  });

  it('builds the turn report itself when the host has none: load params, plan, this turn\'s samples', async () => {
    const built: unknown[] = [];
    const svc2 = new AppService({
      dataDir: dir,
      hostFactory: async (o) => {
        const h = new FakeHost(o);
        return h;
      },
      planModel: async () => fakePlan(['streamed']),
      prepareModel: fakePrepare(fakePlan(['streamed'])),
      buildReport: async (t) => {
        built.push(t);
        return { schema_version: 1, tokens: t.result.tokens.length, samples: t.samples.length };
      },
    });
    const got: ApiEvent[] = [];
    svc2.onEvent((e) => got.push(e));
    await svc2.load('/m/a.gguf', { ...defaultSettings(), ramBytes: 1 << 20 });
    await svc2.generate('r', user, DEFAULT_SAMPLING, 3);
    await waitFor(() => got.some((e) => e.type === 'generation-done'));
    expect(await svc2.lastReport()).toEqual({ schema_version: 1, tokens: 3, samples: 3 });
    expect(built[0]).toMatchObject({ modelPath: '/m/a.gguf', load: { tiers: ['streamed'], policy: 'stream' }, plan: { layers: [{ tier: 'streamed' }] }, generate: { maxTokens: 3 } });
    const done = got.find((e) => e.type === 'generation-done') as Extract<ApiEvent, { type: 'generation-done' }>;
    expect(done.reportId).not.toBeNull();
    await svc2.close();
  });

  it('complete() continues raw text: the worker gets the prompt alone (no chat turns), tokens, end and report as for generate', async () => {
    const built: { generate: unknown }[] = [];
    const svc2 = new AppService({
      dataDir: dir,
      hostFactory: async (o) => {
        const h = new FakeHost(o);
        return h;
      },
      planModel: async () => ({}),
    prepareModel: fakePrepare(),
      buildReport: async (t) => (built.push(t), { schema_version: 1 }),
    });
    const got: ApiEvent[] = [];
    svc2.onEvent((e) => got.push(e));
    await svc2.load('/m/base.gguf', defaultSettings());
    await svc2.complete('c1', 'Once upon a time', DEFAULT_SAMPLING, 4);
    await waitFor(() => got.some((e) => e.type === 'generation-done'));
    expect(got.filter((e) => e.type === 'token' && e.requestId === 'c1')).toHaveLength(4);
    expect(built[0]?.generate).toEqual({ prompt: 'Once upon a time', sampling: DEFAULT_SAMPLING, maxTokens: 4 });
    expect(await svc2.lastReport()).toEqual({ schema_version: 1 });
    expect((await svc2.getState()).status).toBe('ready');
    // Checked before anything runs, like generate's arguments.
    await expect(svc2.complete('c2', '', DEFAULT_SAMPLING, 4)).rejects.toThrow(/text must be a non-empty string/);
    await expect(svc2.complete('c2', 'x', DEFAULT_SAMPLING, 0)).rejects.toThrow(/maxTokens/);
    await svc2.close();
  });

  it('complete() with no model loaded ends in a generation-error, like generate', async () => {
    await svc.complete('c1', 'text', DEFAULT_SAMPLING, 4);
    await waitFor(() => events.some((e) => e.type === 'generation-error'));
    expect(events.find((e) => e.type === 'generation-error')).toMatchObject({ requestId: 'c1', message: 'no model is loaded' });
  });

  it('a load error leaves the service idle with the message, not crashed', async () => {
    await expect(svc.load('/m/bad.gguf', defaultSettings())).rejects.toThrow(/bad magic/);
    const s = await svc.getState();
    expect(s.status).toBe('idle');
    expect(s.message).toMatch(/bad magic/);
  });

  it('killing the worker mid-generation reports a crash, and restart gives a working engine', async () => {
    await svc.load('/m/a.gguf', defaultSettings());
    await svc.generate('r1', user, DEFAULT_SAMPLING, 10_000);
    await waitFor(() => events.filter((e) => e.type === 'token').length >= 3);
    await svc.killWorker();
    await waitFor(() => svc.getStateSync().status === 'crashed');
    const err = events.find((e) => e.type === 'generation-error');
    expect(err).toMatchObject({ requestId: 'r1' });
    expect((err as { message: string }).message).toMatch(/killed.*SIGKILL/);
    expect(svc.getStateSync().lastExit?.signal).toBe('SIGKILL');

    const st = await svc.restart();
    expect(st.status).toBe('ready');
    expect(hosts.length).toBe(2);
    events = [];
    await svc.generate('r2', user, DEFAULT_SAMPLING, 3);
    await waitFor(() => events.some((e) => e.type === 'generation-done'));
    expect(events.filter((e) => e.type === 'token' && e.requestId === 'r2').length).toBe(3);
  });

  it('stop cancels the running generation', async () => {
    await svc.load('/m/a.gguf', defaultSettings());
    await svc.generate('r1', user, DEFAULT_SAMPLING, 10_000);
    await waitFor(() => events.some((e) => e.type === 'token'));
    await svc.stop();
    await waitFor(() => events.some((e) => e.type === 'generation-done'));
    const done = events.find((e) => e.type === 'generation-done') as Extract<ApiEvent, { type: 'generation-done' }>;
    expect(done.result.stopReason).toBe('cancelled');
  });

  it('compares policies: one fresh load and one report per policy', async () => {
    const reports = await svc.comparePolicies('c', '/m/a.gguf', defaultSettings(), ['off', 'stream'], 'Once', 4);
    expect(reports.map((r) => (r as { policy: string }).policy)).toEqual(['off', 'stream']);
    expect(hosts.length).toBe(2);
    expect(events.filter((e) => e.type === 'token' && e.requestId === 'c:stream').length).toBe(4);
  });

  it("measures the stream schedule's compute on the model's shadow before a comparison that runs stream (as bench does), once, with the comparison's settings; not for off alone, and a failed measurement does not stop the comparison", async () => {
    const order: string[] = [];
    const measured: [string, number | null][] = [];
    const make = (fail: boolean) =>
      new AppService({
        dataDir: dir,
        hostFactory: async (o) => {
          order.push('load');
          return new FakeHost(o);
        },
        planModel: async () => ({}),
        measureCompute: async (p, s) => {
          order.push('measure');
          measured.push([p, s.ramBytes]);
          if (fail) throw new Error('no shadow');
        },
        prepareModel: fakePrepare(),
        buildReport: fakeReport,
      });
    const svc2 = make(false);
    await svc2.comparePolicies('c', '/m/a.gguf', { ...defaultSettings(), ramBytes: 300 * 2 ** 20 }, ['off', 'stream'], 'Once', 2);
    expect(order).toEqual(['measure', 'load', 'load']);
    expect(measured).toEqual([['/m/a.gguf', 300 * 2 ** 20]]);
    order.length = 0;
    await svc2.comparePolicies('c', '/m/a.gguf', defaultSettings(), ['off'], 'Once', 2);
    expect(order).toEqual(['load']);
    await svc2.close();
    order.length = 0;
    const svc3 = make(true);
    const reports = await svc3.comparePolicies('c', '/m/a.gguf', defaultSettings(), ['stream'], 'Once', 2);
    expect(order).toEqual(['measure', 'load']);
    expect(reports).toHaveLength(1);
    await svc3.close();
  });

  it('compares off and stream on a model its plan says fits: both loads repacked (stream streams nothing), as bench does; out of core, neither', async () => {
    for (const [tiers, repack] of [[['pinned'], true], [['pinned', 'streamed'], false]] as const) {
      const loads: LoadParams[][] = [];
      const svc2 = new AppService({
        dataDir: dir,
        hostFactory: async (o) => {
          const h = new FakeHost(o);
          loads.push(h.loads);
          return h;
        },
        planModel: async () => fakePlan([...tiers]),
        prepareModel: fakePrepare(fakePlan([...tiers])),
        buildReport: fakeReport,
      });
      await svc2.comparePolicies('c', '/m/a.gguf', { ...defaultSettings(), ramBytes: 300 * 2 ** 20 }, ['off', 'stream'], 'Once', 2);
      expect(loads.map((l) => [l[0]?.policy, l[0]?.repack])).toEqual([['off', repack], ['stream', repack]]);
      await svc2.close();
    }
  });

  it('rejects bad arguments before touching the worker', async () => {
    await expect(svc.load('/m/a.gguf', { ...defaultSettings(), policy: 'nope' })).rejects.toThrow(/policy/);
    await expect(svc.load('', defaultSettings())).rejects.toThrow(/path/);
    await expect(svc.comparePolicies('c', '/m/a.gguf', defaultSettings(), ['zzz'], 'x', 1)).rejects.toThrow(/unknown policy/);
    expect(hosts.length).toBe(0);
  });

  it('saves conversations atomically and lists them newest first', async () => {
    const base = { title: 't', modelPath: '/m', system: '', messages: [{ role: 'user' as const, content: 'x' }] };
    await svc.saveConversation({ ...base, id: 'a', updatedAt: '2026-01-01T00:00:00Z' });
    await svc.saveConversation({ ...base, id: 'b', updatedAt: '2026-02-01T00:00:00Z' });
    await svc.saveConversation({ ...base, id: 'a', title: 'renamed', updatedAt: '2026-03-01T00:00:00Z' });
    const list = await svc.listConversations();
    expect(list.map((c) => [c.id, c.title])).toEqual([['a', 'renamed'], ['b', 't']]);
    // no temp files left behind
    expect((await readdir(join(dir, 'conversations'))).sort()).toEqual(['a.json', 'b.json']);
    await expect(svc.saveConversation({ ...base, id: '../evil', updatedAt: 'x' })).rejects.toThrow(/invalid id/);
  });

  it('keeps a conversation\'s mode (completion chosen automatically) and refuses an unknown one', async () => {
    const base = { title: 't', modelPath: '/m', system: '', messages: [{ role: 'user' as const, content: 'Once' }], updatedAt: '2026-01-01T00:00:00Z' };
    await svc.saveConversation({ ...base, id: 'doc', mode: 'completion', modeAuto: true });
    expect((await svc.listConversations())[0]).toMatchObject({ id: 'doc', mode: 'completion', modeAuto: true });
    await expect(svc.saveConversation({ ...base, id: 'x', mode: 'poem' as never })).rejects.toThrow(/not a conversation/);
  });
});
