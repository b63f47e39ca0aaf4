// The API socket's message listener never throws: an answer JSON cannot hold still gets its one
// error answer, and one client cannot have more than MAX_IN_FLIGHT requests running.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppService } from '../app/service.js';
import { FakeHost } from '../app/fake-host.test-util.js';
import { startServer, type RunningServer } from './index.js';
import { MAX_IN_FLIGHT } from './ws-api.js';
import { login, openWs, type TestSocket } from './test-client.test-util.js';

let dir: string;
let srv: RunningServer;
let release: () => void = () => {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-wsapi-'));
  await mkdir(join(dir, 'renderer'), { recursive: true });
  await writeFile(join(dir, 'renderer', 'index.html'), 'x');
  const gate = new Promise<void>((r) => (release = r));
  const service = new AppService({
    dataDir: join(dir, 'data'),
    hostFactory: async (o) => new FakeHost(o),
    // A reader answer JSON cannot encode (a BigInt), and a planner that waits until released.
    inspectModel: async () => ({ big: 1n }),
    planModel: async () => (await gate, { ok: true }),
  });
  srv = await startServer({ service, rendererDir: join(dir, 'renderer'), uploadDir: join(dir, 'up') });
});

afterAll(async () => {
  await srv.close();
  await rm(dir, { recursive: true, force: true });
});

type Msg = { id?: number | null; result?: unknown; error?: { message: string; code?: string } };

async function answers(ws: TestSocket, n: number): Promise<Msg[]> {
  const t0 = Date.now();
  const got = (): Msg[] => (ws.early as (Msg & { event?: unknown })[]).filter((m) => m.event === undefined);
  while (got().length < n && Date.now() - t0 < 5000) await new Promise((r) => setTimeout(r, 10));
  return got();
}

describe('API socket', () => {
  it('an answer JSON cannot encode becomes an error answer, not an exception in the listener', async () => {
    const ws = await openWs(srv.port, { credential: await login(srv.port, srv.loginUrl()) });
    ws.send(JSON.stringify({ id: 1, method: 'inspect', params: ['/m.gguf'] }));
    const [a] = await answers(ws, 1);
    expect(a).toMatchObject({ id: 1, error: { message: expect.stringMatching(/could not be encoded/) } });
    ws.close();
  });

  it(`at most ${MAX_IN_FLIGHT} requests run at once per socket; the rest are answered busy at once`, async () => {
    const ws = await openWs(srv.port, { credential: await login(srv.port, srv.loginUrl()) });
    const n = MAX_IN_FLIGHT + 8;
    for (let i = 1; i <= n; i++) ws.send(JSON.stringify({ id: i, method: 'plan', params: ['/m.gguf', null] }));
    const busy = await answers(ws, 8);
    expect(busy.map((m) => m.error?.code)).toEqual(Array(8).fill('busy'));
    release();
    const all = await answers(ws, n);
    expect(all.filter((m) => m.result !== undefined)).toHaveLength(MAX_IN_FLIGHT);
    expect(new Set(all.map((m) => m.id)).size).toBe(n);
    ws.close();
  });
});
