// The start's recovery on a data folder prepared by hand as a kill -9 leaves one: temp files of
// unfinished atomic writes, torn JSON, a conversation whose reply was being written.
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Conversation } from '../shared/api.js';
import { recoveryLine } from '../shared/recovery.js';
import { recoverDataFolder } from './recovery.js';
import { ConversationStore } from './conversations.js';
import { AppService } from './service.js';
import { FakeHost } from './fake-host.test-util.js';

let root: string;
let data: string;
let routing: string;

/** A pid no process has now: one that just ran and ended. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '0']);
  return r.pid as number;
}

const conv = (id: string, messages: Conversation['messages']): Conversation => ({ id, title: `talk ${id}`, modelPath: '/m/a.gguf', system: '', messages, updatedAt: '2026-01-01T00:00:00.000Z' });
const write = (path: string, text: string): void => writeFileSync(path, text);
const json = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ramforge-recover-'));
  data = join(root, 'data');
  routing = join(root, 'cache', 'routing.json');
  mkdirSync(join(data, 'conversations'), { recursive: true });
  mkdirSync(join(data, 'reports'), { recursive: true });
  mkdirSync(join(root, 'cache'), { recursive: true });
  const dead = deadPid();
  // Killed mid-reply: the user's message and the reply as last saved, still marked as being written.
  write(join(data, 'conversations', 'mid.json'), JSON.stringify(conv('mid', [{ role: 'user', content: 'tell me' }, { role: 'assistant', content: 'Once upon', streaming: true }])));
  write(join(data, 'conversations', 'done.json'), JSON.stringify(conv('done', [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }])));
  // An unfinished rewrite of done.json: newer text that must never be read as the conversation.
  write(join(data, 'conversations', `.done.json.${dead}.0badcafe.tmp`), JSON.stringify(conv('done', [{ role: 'user', content: 'half' }])));
  write(join(data, `.api-server.json.${dead}.deadbeef.tmp`), '{"enabled": tr');
  // A writer that is alive (this test's parent): its temp file is its business.
  write(join(data, `.recent-models.json.${process.ppid}.0123abcd.tmp`), '[');
  write(join(data, 'conversations', 'torn.json'), '{"id":"torn","title":"To');
  write(join(data, 'model-folders.json'), '["/models", ');
  write(join(data, 'api-server.json'), JSON.stringify({ enabled: true, port: 9123, apiKey: null }));
  write(routing, '{"schemaVersion":1,"models":{');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('recovery at start', () => {
  it('removes temp files of dead writers, and only those', async () => {
    const r = await recoverDataFolder(data, [routing]);
    expect(r.tempFilesRemoved).toBe(2);
    expect(readdirSync(join(data, 'conversations')).some((n) => n.endsWith('.tmp'))).toBe(false);
    expect(readdirSync(data).filter((n) => n.endsWith('.tmp'))).toEqual([`.recent-models.json.${process.ppid}.0123abcd.tmp`]);
    // The finished conversation is the one that was renamed into place, not the temp file's.
    expect((json(join(data, 'conversations', 'done.json')) as Conversation).messages[1]).toEqual({ role: 'assistant', content: 'hello' });
  });

  it('moves torn JSON aside under another name, keeping its bytes, and reads the good files as before', async () => {
    const r = await recoverDataFolder(data, [routing]);
    expect(r.movedAside.map((m) => m.file).sort()).toEqual([join('conversations', 'torn.json'), 'model-folders.json', routing].sort());
    for (const m of r.movedAside) expect(m.to).toMatch(/\.json\.damaged-\d{4}-/);
    expect(existsSync(join(data, 'conversations', 'torn.json'))).toBe(false);
    const aside = readdirSync(join(data, 'conversations')).find((n) => n.startsWith('torn.json.damaged-'));
    expect(readFileSync(join(data, 'conversations', aside as string), 'utf8')).toBe('{"id":"torn","title":"To');
    expect(existsSync(routing)).toBe(false);
    expect(json(join(data, 'api-server.json'))).toEqual({ enabled: true, port: 9123, apiKey: null });
  });

  it("keeps a conversation cut off mid-reply with the user's message and the reply so far, marked interrupted", async () => {
    const r = await recoverDataFolder(data, [routing]);
    expect(r.interrupted).toEqual(['talk mid']);
    const list = await new ConversationStore(join(data, 'conversations')).list();
    expect(list.map((c) => c.id).sort()).toEqual(['done', 'mid']);
    const mid = list.find((c) => c.id === 'mid') as Conversation;
    expect(mid.messages).toEqual([
      { role: 'user', content: 'tell me' },
      { role: 'assistant', content: 'Once upon', interrupted: true },
    ]);
  });

  it('says what it recovered in one line, and a second start finds nothing to say', async () => {
    const line = recoveryLine(await recoverDataFolder(data, [routing]));
    expect(line).toMatch(/^recovered: 1 conversation interrupted mid-reply \("talk mid"/);
    expect(line).toContain('2 temp files of an unfinished write removed');
    expect(line).toContain('3 damaged files moved aside (');
    expect(line).toContain(`${join('conversations', 'torn.json')} → torn.json.damaged-`);
    expect(recoveryLine(await recoverDataFolder(data, [routing]))).toBeNull();
  });

  it("the service keeps the account for the app's notice, handed out once", async () => {
    const svc = new AppService({ dataDir: data, hostFactory: async (o) => new FakeHost(o) });
    try {
      await svc.recover([routing]);
      const notice = await svc.takeRecoveryNotice();
      expect(notice?.interrupted).toEqual(['talk mid']);
      expect(await svc.takeRecoveryNotice()).toBeNull();
    } finally {
      await svc.close();
    }
  });

  it('an empty or missing data folder starts clean', async () => {
    const r = await recoverDataFolder(join(root, 'nothing-here'));
    expect(recoveryLine(r)).toBeNull();
  });
});
