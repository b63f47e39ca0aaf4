// What the service has on disk at each moment a chat turn is acknowledged: the user's message
// when generate() resolves, the reply as it streams, the finished turn (and its report) when
// generation-done is sent, an interrupted reply when the worker dies. Read with the file system,
// as a start after a kill -9 would read it.
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppService } from './service.js';
import { FakeHost, fakePrepare, fakeReport, waitUntil as waitFor } from './fake-host.test-util.js';
import { defaultSettings } from './settings.js';
import type { ApiEvent, Conversation } from '../shared/api.js';
import { DEFAULT_SAMPLING } from '../shared/settings/run-settings.js';

let dir: string;
let hosts: FakeHost[];
let svc: AppService;
let events: ApiEvent[];

function service(tokenMs: number): AppService {
  return new AppService({
    dataDir: dir,
    hostFactory: async (o) => {
      const h = new FakeHost(o, tokenMs);
      hosts.push(h);
      return h;
    },
    prepareModel: fakePrepare(),
    buildReport: fakeReport,
  });
}

async function start(tokenMs = 5): Promise<void> {
  svc = service(tokenMs);
  svc.onEvent((e) => events.push(e));
  await svc.load('/m/a.gguf', defaultSettings());
}


const convo: Conversation = { id: 'conv-1', title: 'hi', modelPath: '/m/a.gguf', system: '', messages: [{ role: 'user', content: 'hi' }], updatedAt: '2026-01-01T00:00:00.000Z' };
const onDisk = (): Conversation => JSON.parse(readFileSync(join(dir, 'conversations', 'conv-1.json'), 'utf8')) as Conversation;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-kept-'));
  hosts = [];
  events = [];
});

afterEach(async () => {
  await svc.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a chat turn kept by the service', () => {
  it("has the user's message on disk when generate() resolves, before any token", async () => {
    await start(50);
    await svc.generate('r1', convo.messages, DEFAULT_SAMPLING, 5, convo);
    const c = onDisk();
    expect(c.messages[0]).toEqual({ role: 'user', content: 'hi' });
    expect(c.messages[1]).toMatchObject({ role: 'assistant', content: '', streaming: true });
    await waitFor(() => events.some((e) => e.type === 'generation-done'));
  });

  it('has the finished turn and its report on disk when generation-done is sent', async () => {
    await start();
    let atDone: { convo: Conversation; report: unknown } | null = null;
    svc.onEvent((e) => {
      if (e.type !== 'generation-done') return;
      const report = existsSync(join(dir, 'reports', 'last-turn.json')) ? (JSON.parse(readFileSync(join(dir, 'reports', 'last-turn.json'), 'utf8')) as unknown) : null;
      atDone = { convo: onDisk(), report };
    });
    await svc.generate('r1', convo.messages, DEFAULT_SAMPLING, 3, convo);
    await waitFor(() => atDone !== null);
    const { convo: c, report } = atDone as unknown as { convo: Conversation; report: unknown };
    expect(c.messages).toHaveLength(2);
    expect(c.messages[1]).toEqual({ role: 'assistant', content: 't0 t1 t2 ', stats: { ttftMs: 1, decodeTokS: 1, tokens: 3 } });
    expect(report).toEqual({ schema_version: 1, policy: 'off', tokens: [0, 1, 2] });
  });

  it('saves the reply as it streams, marked as still being written', async () => {
    await start(20);
    await svc.generate('r1', convo.messages, DEFAULT_SAMPLING, 10_000, convo);
    // A checkpoint lands within a second of the first token (kept-turn.ts's CHECKPOINT_MS).
    await waitFor(() => existsSync(join(dir, 'conversations', 'conv-1.json')) && (onDisk().messages[1]?.content ?? '') !== '', 5000);
    const c = onDisk();
    expect(c.messages[1]).toMatchObject({ role: 'assistant', streaming: true });
    expect(c.messages[1]!.content).toMatch(/^t0 t1 /);
    await svc.stop();
    await waitFor(() => events.some((e) => e.type === 'generation-done'));
    expect(onDisk().messages[1]!.streaming).toBeUndefined();
  });

  it('keeps what streamed, marked interrupted, when the worker dies mid-reply', async () => {
    await start(20);
    await svc.generate('r1', convo.messages, DEFAULT_SAMPLING, 10_000, convo);
    await waitFor(() => events.filter((e) => e.type === 'token').length >= 3);
    await svc.killWorker();
    await waitFor(() => onDisk().messages[1]?.interrupted === true);
    const c = onDisk();
    expect(c.messages[0]).toEqual({ role: 'user', content: 'hi' });
    expect(c.messages[1]!.content).toMatch(/^t0 t1 t2 /);
    expect(c.messages[1]!.streaming).toBeUndefined();
  });

  it("refuses a conversation that is not one, before the generation starts (nothing saved)", async () => {
    await start();
    await expect(svc.generate('r1', convo.messages, DEFAULT_SAMPLING, 3, { ...convo, id: '../escape' })).rejects.toThrow(/invalid id/);
    await expect(svc.generate('r1', convo.messages, DEFAULT_SAMPLING, 3, { nope: 1 })).rejects.toThrow(/not a conversation/);
    expect(events.some((e) => e.type === 'token')).toBe(false);
    expect(existsSync(join(dir, 'conversations'))).toBe(false);
  });

  it("gives the last turn's report back after a restart on the same data folder", async () => {
    await start();
    await svc.generate('r1', convo.messages, DEFAULT_SAMPLING, 2, convo);
    await waitFor(() => events.some((e) => e.type === 'generation-done'));
    await svc.close();
    svc = service(5);
    expect(await svc.lastReport()).toEqual({ schema_version: 1, policy: 'off', tokens: [0, 1] });
  });
});
