// Fuzzing the browser-mode server in this process (a fake worker host behind the real service):
// a few thousand malformed requests, upgrades, WebSocket frames and API messages. The server
// never throws out of a listener (vitest fails the run on any uncaught error), never answers
// 5xx, accepts exactly the upgrades it should, answers every API request once, and stays up.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppService } from '../app/service.js';
import { FakeHost, fakePrepare } from '../app/fake-host.test-util.js';
import { startServer, type RunningServer } from './index.js';
import { http, login } from './test-client.test-util.js';
import { fuzz, summary } from './fuzz-cases.test-util.js';

let dir: string;
let srv: RunningServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-fuzz-'));
  await mkdir(join(dir, 'renderer', 'assets'), { recursive: true });
  await writeFile(join(dir, 'renderer', 'index.html'), '<!doctype html><title>x</title>');
  await writeFile(join(dir, 'renderer', 'assets', 'a.js'), 'console.log(1)');
  const service = new AppService({
    dataDir: join(dir, 'data'),
    hostFactory: async (o) => new FakeHost(o),
    // Nothing here may start a process: the reader, the planner and discovery are fakes.
    inspectModel: async (p) => ({ path: p, layers: [] }),
    planModel: async () => ({}),
    prepareModel: fakePrepare(),
    discover: async () => ({ roots: [], models: [] }),
  });
  srv = await startServer({ service, rendererDir: join(dir, 'renderer'), uploadDir: join(dir, 'uploads'), uploadLimits: { maxBytes: 1 << 20, quotaBytes: 8 << 20, reserveBytes: 0 } });
});

afterAll(async () => {
  await srv.close();
  await rm(dir, { recursive: true, force: true });
});

describe('browser-mode server under fuzzing (in process)', () => {
  it('answers thousands of malformed requests with a 4xx or a close, and keeps serving', async () => {
    const credential = await login(srv.port, srv.loginUrl());
    const t0 = performance.now();
    const rss0 = process.memoryUsage().rss;
    const out = await fuzz({ port: srv.port, credential }, 0x5eed, { http: 1500, upgrade: 800, frame: 800, api: 1500 }, { safeOnly: false });
    const ms = performance.now() - t0;
    const rss1 = process.memoryUsage().rss;
    // This RSS is the test process's, clients included; serve-cli.test.ts measures the server alone.
    process.stdout.write(`server fuzz (in process): ${out.length} cases in ${(ms / 1000).toFixed(1)} s; process RSS ${(rss0 / 2 ** 20).toFixed(0)} -> ${(rss1 / 2 ** 20).toFixed(0)} MiB\n  ${summary(out)}\n`);
    const problems = out.filter((o) => o.problem !== null);
    expect(problems.slice(0, 10).map((p) => `${p.kind} ${p.problem}: ${p.detail}`)).toEqual([]);
    expect(out.length).toBeGreaterThanOrEqual(4600);
    expect((await http(srv.port, '/')).status).toBe(200);
    expect((await login(srv.port, srv.loginUrl())).length).toBeGreaterThan(0);
  });
});
