import { beforeEach, describe, expect, it } from 'vitest';
import type { ResidencySample } from '../../src-main/shared/residency-types.js';
import type { GenerationResult } from '../../src-main/shared/worker-protocol.js';
import { setApi } from '../api.js';
import { fakeApi, type FakeApi } from './fake-api.test-util.js';
import { parseSizeField } from './engine-slice.js';
import { startStore, useStore } from './index.js';

let api: ReturnType<typeof fakeApi>;
let stop: () => void;

const result = (text: string): GenerationResult => ({
  promptTokens: [1],
  tokens: [2, 3],
  text,
  stopReason: 'eos',
  reusedTokens: 0,
  timings: { promptMs: 1, ttftMs: 42, decodeMs: 10, promptTokS: 1, decodeTokS: 7.5, perTokenMs: [] },
});

const ready = { status: 'ready' as const, model: { path: '/m.gguf' } as never, settings: null, lastExit: null, message: null };

beforeEach(() => {
  stop?.();
  api = fakeApi();
  setApi(api);
  useStore.setState(useStore.getInitialState(), true);
  // Synchronous event handling: the per-frame batching has its own test.
  stop = startStore({ schedule: (flush) => flush() });
});

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('chat', () => {
  it('streams tokens into the assistant turn, then saves with stats', async () => {
    (api as FakeApi).emit({ type: 'state', state: ready });
    useStore.getState().setSystem('be brief');
    await useStore.getState().send('hi');
    const [requestId, turns, , maxTokens] = (api as FakeApi).generate.mock.calls[0] as [string, unknown, unknown, number];
    expect(turns).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hi' },
    ]);
    expect(maxTokens).toBe(256);
    (api as FakeApi).emit({ type: 'token', requestId, token: { index: 0, tokenId: 2, text: 'Hel', tMs: 1 } });
    (api as FakeApi).emit({ type: 'token', requestId: 'other', token: { index: 0, tokenId: 9, text: 'X', tMs: 1 } });
    (api as FakeApi).emit({ type: 'token', requestId, token: { index: 1, tokenId: 3, text: 'lo', tMs: 2 } });
    expect(useStore.getState().current.messages[1]!.content).toBe('Hello');
    expect(useStore.getState().streaming).not.toBeNull();
    (api as FakeApi).emit({ type: 'generation-done', requestId, result: result('Hello'), reportId: null });
    await flush();
    const s = useStore.getState();
    expect(s.streaming).toBeNull();
    expect(s.current.messages[1]!.stats).toEqual({ ttftMs: 42, decodeTokS: 7.5, tokens: 2 });
    expect((api as FakeApi).saveConversation).toHaveBeenCalledTimes(1);
    expect(s.current.title).toBe('hi');
  });

  it('sends the whole history on the next turn', async () => {
    await useStore.getState().send('one');
    const id1 = ((api as FakeApi).generate.mock.calls[0] as [string])[0];
    (api as FakeApi).emit({ type: 'generation-done', requestId: id1, result: result('first'), reportId: null });
    await useStore.getState().send('two');
    const turns = ((api as FakeApi).generate.mock.calls[1] as [string, unknown])[1];
    expect(turns).toEqual([
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'first' },
      { role: 'user', content: 'two' },
    ]);
  });

  it('ends streaming with a message when the worker crashes mid-generation', async () => {
    await useStore.getState().send('hi');
    (api as FakeApi).emit({
      type: 'state',
      state: { status: 'crashed', model: null, settings: null, lastExit: { reason: 'oom', code: null, signal: 'SIGKILL', message: 'killed' }, message: 'killed by the cap' },
    });
    const s = useStore.getState();
    expect(s.engine.status).toBe('crashed');
    expect(s.streaming).toBeNull();
    expect(s.chatError).toBe('killed by the cap');
    // the empty assistant turn is dropped, the user turn stays
    expect(s.current.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('hands the conversation with the new message to the host, which keeps it', async () => {
    (api as FakeApi).emit({ type: 'state', state: ready });
    await useStore.getState().send('hi');
    const kept = ((api as FakeApi).generate.mock.calls[0] as unknown[])[4] as { id: string; messages: unknown[] };
    expect(kept.id).toBe(useStore.getState().current.id);
    expect(kept.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('marks a reply cut off mid-way as interrupted and keeps its text', async () => {
    await useStore.getState().send('hi');
    const [requestId] = (api as FakeApi).generate.mock.calls[0] as [string];
    (api as FakeApi).emit({ type: 'token', requestId, token: { index: 0, tokenId: 2, text: 'Hel', tMs: 1 } });
    (api as FakeApi).emit({ type: 'generation-error', requestId, message: 'the worker died' });
    expect(useStore.getState().current.messages[1]).toEqual({ role: 'assistant', content: 'Hel', interrupted: true });
  });

  it("shows once what the host recovered after a crash", async () => {
    stop();
    (api as FakeApi).takeRecoveryNotice.mockResolvedValueOnce({ interrupted: ['hi'], tempFilesRemoved: 1, movedAside: [] });
    stop = startStore({ schedule: (flush) => flush() });
    await flush();
    expect(useStore.getState().notice).toEqual({ kind: 'info', text: 'recovered: 1 conversation interrupted mid-reply ("hi": the reply so far is kept, marked interrupted), 1 temp file of an unfinished write removed' });
  });
});

describe('inspect and plan', () => {
  it('shows the reader error for a bad file and keeps no stale inspection', async () => {
    (api as FakeApi).inspect.mockRejectedValueOnce(new Error('/x.gguf: bad magic (at byte offset 0)'));
    await useStore.getState().openModel('/x.gguf');
    const s = useStore.getState();
    expect(s.inspectError).toBe('/x.gguf: bad magic (at byte offset 0)');
    expect(s.inspection).toBeNull();
    expect(s.tab).toBe('inspect');
  });

  it('inspects then plans with the current settings', async () => {
    useStore.getState().setSizeText('ram', '2G');
    await useStore.getState().openModel('/m.gguf');
    const s = useStore.getState();
    expect(s.inspection?.arch).toBe('llama');
    expect(s.plan?.layers).toEqual([{ index: 0, bytes: 10, tier: 'pinned', streamedBytes: null }]);
    expect(((api as FakeApi).plan.mock.calls.at(-1) as [string, { ramBytes: number }])[1].ramBytes).toBe(2 * 1024 ** 3);
  });

  it('uploads a dropped file when there is no local path (browser mode)', async () => {
    const fetchCalls: string[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = (async (url: string) => {
      fetchCalls.push(url);
      return new Response(JSON.stringify({ path: '/srv/uploads/d.gguf' }));
    }) as typeof fetch;
    try {
      await useStore.getState().openModelFile(new File(['GGUF'], 'd.gguf'));
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(fetchCalls).toEqual(['/upload?name=d.gguf']);
    expect((api as FakeApi).inspect).toHaveBeenCalledWith('/srv/uploads/d.gguf');
    expect(useStore.getState().modelLabel).toBe('d.gguf');
  });

  it('uses the preload path in Electron without uploading', async () => {
    (api as FakeApi).pathForFile.mockReturnValueOnce('/home/u/m.gguf');
    await useStore.getState().openModelFile(new File(['GGUF'], 'm.gguf'));
    expect((api as FakeApi).inspect).toHaveBeenCalledWith('/home/u/m.gguf');
  });
});

describe('settings', () => {
  it('parses sizes and reports bad ones without changing the budget', () => {
    expect(parseSizeField('')).toEqual({ bytes: null, error: null });
    expect(parseSizeField('512M').bytes).toBe(512 * 1024 ** 2);
    useStore.getState().setSizeText('ram', '1G');
    useStore.getState().setSizeText('ram', '1Q');
    const s = useStore.getState();
    expect(s.settings.ramBytes).toBe(1024 ** 3);
    expect(s.settingsError).toMatch(/RAM/);
    expect(s.ramText).toBe('1Q');
  });
});

describe('events, reports and telemetry', () => {
  it('keeps samples and load progress from events', () => {
    (api as FakeApi).emit({ type: 'load-progress', fraction: 0.25 });
    (api as FakeApi).emit({ type: 'state', state: { ...ready, status: 'loading' } });
    expect(useStore.getState().loadFraction).toBe(0.25);
    const sample: ResidencySample = { tMs: 1, token: 0, phase: 'load', layerResident: [1], persistentResident: null, rssBytes: 5, cgroupBytes: null, cgroupLimitBytes: null, limitHits: null, pinnedResident: null, pinnedBytes: null, readBytes: null, majorFaults: null, decodeTokS: null, events: [] };
    (api as FakeApi).emit({ type: 'sample', sample: { ...sample, layerResident: [1] } });
    (api as FakeApi).emit({ type: 'cgroup-sample', tMs: 3, usageBytes: 7, limitBytes: 9 });
    expect(useStore.getState().samples).toHaveLength(1);
    expect(useStore.getState().cgroupTicks).toEqual([{ tMs: 3, usageBytes: 7, limitBytes: 9 }]);
  });

  it('fetches the report after a generation and exports it', async () => {
    (api as FakeApi).lastReport.mockResolvedValue({ schema_version: 1, model: { name: 'm' } });
    (api as FakeApi).emit({ type: 'generation-done', requestId: 'x', result: result(''), reportId: 'r' });
    await flush();
    expect(useStore.getState().lastReport?.info.modelName).toBe('m');
    await useStore.getState().exportReport();
    expect((api as FakeApi).exportReport).toHaveBeenCalledWith({ schema_version: 1, model: { name: 'm' } });
  });

  it("keeps the routing summary a generation brings (a mixture of experts'), until the next load", async () => {
    const routing = { trace: '/t/a.csv', recordedTo: null, replacedSelections: 3, promptWraps: 0, decodeWraps: 0, droppedIds: 0, forgottenRequests: 0, optimum: null };
    (api as FakeApi).emit({ type: 'generation-done', requestId: 'x', result: { ...result(''), routing }, reportId: null });
    expect(useStore.getState().routing).toEqual(routing);
    // A generation without one (a dense model) leaves it; a new load starts over.
    (api as FakeApi).emit({ type: 'generation-done', requestId: 'y', result: result(''), reportId: null });
    expect(useStore.getState().routing).toEqual(routing);
    await useStore.getState().loadModel('/m.gguf');
    expect(useStore.getState().routing).toBeNull();
  });

  it('opens a report file and rejects one that is not JSON', async () => {
    const r = await useStore.getState().openReportFile(new File([JSON.stringify({ schema_version: 1, outcome: { status: 'ok', exit_code: 0 } })], 'r.json'));
    expect(r?.info.status).toBe('ok');
    expect(useStore.getState().dashboardSource).toBe(r?.id);
    expect(await useStore.getState().openReportFile(new File(['{nope'], 'bad.json'))).toBeNull();
    expect(useStore.getState().reportError).toMatch(/^bad\.json: /);
  });

  it('runs a policy comparison and selects its reports, labelled by policy', async () => {
    (api as FakeApi).emit({ type: 'state', state: ready });
    (api as FakeApi).comparePolicies.mockResolvedValue([{ schema_version: 1 }, { schema_version: 1 }]);
    await useStore.getState().runComparison(['off', 'stream'], 'hello', 8);
    const call = (api as FakeApi).comparePolicies.mock.calls[0] as unknown[];
    expect(call.slice(1)).toEqual(['/m.gguf', useStore.getState().settings, ['off', 'stream'], 'hello', 8]);
    const s = useStore.getState();
    expect(s.compareIds).toHaveLength(2);
    expect(s.reports.map((r) => r.policy)).toEqual(['off', 'stream']);
    expect(s.compareRun).toBeNull();
  });

  it('restarts after a crash and takes the new state', async () => {
    (api as FakeApi).restart.mockResolvedValue({ ...ready });
    await useStore.getState().restart();
    expect(useStore.getState().engine.status).toBe('ready');
  });
});
