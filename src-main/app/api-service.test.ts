// The app service with its HTTP API on (a fake worker): the setting turns it on and off and is
// kept; API requests and the app's own chat share the worker's sequences through one gate; the
// server reports its load as server-stats events; a worker that dies or a model unloaded under
// a request gives 500 or 503, never a hung request.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppService } from './service.js';
import { FakeHost, fakePrepare, waitUntil as waitFor } from './fake-host.test-util.js';
import { defaultSettings } from './settings.js';
import type { ApiEvent } from '../shared/api.js';
import type { ServerStats } from '../shared/server-stats.js';
import type { LoadParams, ModelInfo } from '../shared/worker-protocol.js';
import { DEFAULT_SAMPLING } from '../shared/settings/run-settings.js';

/** A fake worker whose model has a chat template. */
class ChatHost extends FakeHost {
  override async load(params: LoadParams, onProgress?: (f: number) => void): Promise<ModelInfo> {
    return { ...(await super.load(params, onProgress)), chatTemplate: '{{ messages }}' };
  }
}

let dir: string;
let hosts: FakeHost[];
let svc: AppService;
let events: ApiEvent[];

function service(): AppService {
  const s = new AppService({
    dataDir: dir,
    hostFactory: async (o) => {
      const h = new ChatHost(o, 10);
      hosts.push(h);
      return h;
    },
    inspectModel: async (p) => ({ path: p }),
    planModel: async () => ({}),
    prepareModel: fakePrepare(),
    apiQueue: 2,
  });
  s.onEvent((e) => events.push(e));
  return s;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}


const stats = (): ServerStats[] => events.flatMap((e) => (e.type === 'server-stats' ? [e.stats] : []));
const complete = (url: string, body: Record<string, unknown>) =>
  fetch(`${url}/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', prompt: 'x', max_tokens: 3, ...body }) });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-app-api-'));
  hosts = [];
  events = [];
  svc = service();
});

afterEach(async () => {
  await svc.close();
  await rm(dir, { recursive: true, force: true });
});

describe('AppService with the API server', () => {
  it('is off by default; on, it listens on 127.0.0.1, serves the loaded model, keeps the setting (owner-only), and goes off again', async () => {
    expect(await svc.getApiServer()).toEqual({ enabled: false, url: null, port: 8080, hasKey: false, error: null, cors: [], defaults: {}, names: { aliases: [], tags: [] }, slots: true, pooling: 'mean' });
    const port = await freePort();
    const on = await svc.setApiServer({ enabled: true, port, apiKey: null });
    expect(on).toEqual({ enabled: true, url: `http://127.0.0.1:${port}/v1`, port, hasKey: false, error: null, cors: [], defaults: {}, names: { aliases: [], tags: [] }, slots: true, pooling: 'mean' });
    expect((await stat(join(dir, 'api-server.json'))).mode & 0o777).toBe(0o600);
    const noModel = await complete(on.url as string, {});
    expect(noModel.status).toBe(503);
    await svc.load(join(dir, 'm.gguf'), { ...defaultSettings(), parallel: 2 });
    const list = (await (await fetch(`${on.url}/models`)).json()) as { data: { id: string; ramforge: { sequences: number } }[] };
    expect(list.data.map((m) => [m.id, m.ramforge.sequences])).toEqual([['m', 2]]);
    const r = await complete(on.url as string, {});
    expect(r.status).toBe(200);
    expect(((await r.json()) as { choices: { text: string }[] }).choices[0]?.text).toBe('t0 t1 t2 ');
    expect(stats().at(-1)).toMatchObject({ url: on.url, sequences: 2, activeRequests: 0, completed: 1 });

    const off = await svc.setApiServer({ enabled: false, port });
    expect(off).toMatchObject({ enabled: false, url: null });
    expect(stats().at(-1)?.url).toBeNull();
    await expect(fetch(`${on.url}/models`)).rejects.toThrow();
  });

  it("sampling defaults from the setting: a request that sets nothing gets them, /props shows them, they are kept, and a wrong one is refused", async () => {
    const port = await freePort();
    const on = await svc.setApiServer({ enabled: true, port, apiKey: null, defaults: { maxTokens: 4, seed: 42, temperature: 0.2 } });
    expect(on.defaults).toEqual({ maxTokens: 4, seed: 42, temperature: 0.2 });
    await svc.load(join(dir, 'm.gguf'), defaultSettings());
    const silent = await complete(on.url as string, { max_tokens: undefined });
    expect(((await silent.json()) as { choices: { text: string }[] }).choices[0]?.text).toBe('t0 t1 t2 t3 ');
    const props = (await (await fetch(`http://127.0.0.1:${port}/props`)).json()) as { default_generation_settings: { params: object } };
    expect(props.default_generation_settings.params).toMatchObject({ seed: 42, temperature: 0.2, n_predict: 4, top_p: 1 });
    await svc.setApiServer({ enabled: false, port });
    expect((await svc.setApiServer({ enabled: true, port })).defaults).toEqual({ maxTokens: 4, seed: 42, temperature: 0.2 });
    await expect(Promise.resolve().then(() => svc.setApiServer({ enabled: true, port, defaults: { temperature: 'hot' } as never }))).rejects.toThrow(/temperature must be a number/);
    const cleared = await svc.setApiServer({ enabled: true, port, defaults: {} });
    expect(cleared.defaults).toEqual({});
    const open = await complete(cleared.url as string, { max_tokens: undefined });
    expect(((await open.json()) as { usage: { completion_tokens: number } }).usage.completion_tokens).toBeGreaterThan(4);
  });

  it('model names from the setting: /v1/models lists the first alias with every alias and tag, requests may use any; kept', async () => {
    const port = await freePort();
    const on = await svc.setApiServer({ enabled: true, port, apiKey: null, names: { aliases: ['zeta', 'alpha'], tags: ['chat'] } });
    expect(on.names).toEqual({ aliases: ['zeta', 'alpha'], tags: ['chat'] });
    await svc.load(join(dir, 'm.gguf'), defaultSettings());
    const list = (await (await fetch(`${on.url}/models`)).json()) as { data: object[] };
    expect(list.data).toEqual([expect.objectContaining({ id: 'alpha', aliases: ['zeta', 'alpha'], tags: ['chat'] })]);
    for (const model of ['alpha', 'zeta', 'm']) expect((await complete(on.url as string, { model })).status, model).toBe(200);
    await svc.setApiServer({ enabled: false, port });
    expect((await svc.setApiServer({ enabled: true, port })).names).toEqual({ aliases: ['zeta', 'alpha'], tags: ['chat'] });
    await expect(Promise.resolve().then(() => svc.setApiServer({ enabled: true, port, names: { aliases: ['a b'], tags: [] } }))).rejects.toThrow(/alias 'a b'/);
  });

  it("GET /slots from the setting: a slot per sequence, busy while a generation runs (the app's chat too); off, a 501", async () => {
    const port = await freePort();
    const on = await svc.setApiServer({ enabled: true, port, apiKey: null });
    expect(on.slots).toBe(true);
    await svc.load(join(dir, 'm.gguf'), { ...defaultSettings(), parallel: 2 });
    const slots = async () => (await (await fetch(`http://127.0.0.1:${port}/slots`)).json()) as { id: number; is_processing: boolean }[];
    expect((await slots()).map((s) => [s.id, s.is_processing])).toEqual([[0, false], [1, false]]);
    await svc.generate('ui-1', [{ role: 'user', content: 'hi' }], DEFAULT_SAMPLING, 50);
    await waitFor(() => events.some((e) => e.type === 'token'));
    expect((await slots()).map((s) => s.is_processing)).toEqual([true, false]);
    await svc.stop();
    const off = await svc.setApiServer({ enabled: true, port, slots: false });
    expect(off.slots).toBe(false);
    // The server restarted with the new setting: a pooled connection to the old one may be closed once.
    const status = () => fetch(`http://127.0.0.1:${port}/slots`).then((r) => r.status, () => fetch(`http://127.0.0.1:${port}/slots`).then((r) => r.status));
    expect(await status()).toBe(501);
  });

  it("embeddings' pooling from the setting (serve --pooling): none is kept, and the server answers OpenAI's route with llama-server's 400; mean again, it does not", async () => {
    const port = await freePort();
    const on = await svc.setApiServer({ enabled: true, port, apiKey: null, pooling: 'none' });
    expect(on.pooling).toBe('none');
    expect(JSON.parse(await readFile(join(dir, 'api-server.json'), 'utf8'))).toMatchObject({ pooling: 'none' });
    const embed = () => fetch(`http://127.0.0.1:${port}/v1/embeddings`, { method: 'POST', body: JSON.stringify({ input: 'hi' }) }).then(async (r) => ({ status: r.status, text: await r.text() }));
    const refused = await embed();
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/Pooling type 'none' is not OAI compatible/);
    // Flipping the switch keeps it; mean restarts the server without it.
    expect((await svc.setApiServer({ enabled: true, port })).pooling).toBe('none');
    expect((await svc.setApiServer({ enabled: true, port, pooling: 'mean' })).pooling).toBe('mean');
    const again = await embed().catch(() => embed());
    expect(again.text).not.toMatch(/Pooling type 'none'/);
    await expect(Promise.resolve().then(() => svc.setApiServer({ enabled: true, port, pooling: 'cls' }))).rejects.toThrow(/pooling must be 'mean' or 'none'/);
  });

  it('a key is kept when the switch is flipped without one, and only whether there is one is told', async () => {
    const port = await freePort();
    const on = await svc.setApiServer({ enabled: true, port, apiKey: 'k-1' });
    expect(on.hasKey).toBe(true);
    await svc.setApiServer({ enabled: false, port });
    const again = await svc.setApiServer({ enabled: true, port });
    expect(again.hasKey).toBe(true);
    expect(JSON.stringify(again)).not.toContain('k-1');
    expect((await fetch(`${again.url}/models`)).status).toBe(401);
    expect((await fetch(`${again.url}/models`, { headers: { authorization: 'Bearer k-1' } })).status).toBe(200);
  });

  it('restored at the next start when left on; a port in use is the state\'s error, not an exception', async () => {
    const port = await freePort();
    await svc.setApiServer({ enabled: true, port, apiKey: null });
    const second = service();
    try {
      const st = await second.restoreApiServer();
      expect(st).toMatchObject({ enabled: true, url: null, port });
      expect(st.error).toMatch(new RegExp(`port ${port} is in use`));
      await svc.setApiServer({ enabled: false, port });
      const retried = await second.setApiServer({ enabled: true, port });
      expect(retried).toMatchObject({ url: `http://127.0.0.1:${port}/v1`, error: null });
    } finally {
      await second.close();
    }
  });

  it("with one sequence the app's chat and an API request take turns; stop ends the chat's generation only", async () => {
    const port = await freePort();
    const { url } = await svc.setApiServer({ enabled: true, port, apiKey: null });
    await svc.load(join(dir, 'm.gguf'), defaultSettings());
    await svc.generate('ui-1', [{ role: 'user', content: 'hi' }], DEFAULT_SAMPLING, 10);
    await waitFor(() => events.some((e) => e.type === 'token'));
    const api = complete(url as string, { max_tokens: 5 });
    await waitFor(() => stats().some((s) => s.queued === 1));
    const done = await new Promise<ApiEvent>((resolve) => svc.onEvent((e) => e.type === 'generation-done' && resolve(e)));
    expect(done).toMatchObject({ requestId: 'ui-1', result: { stopReason: 'max_tokens' } });
    const r = await api;
    expect(r.status).toBe(200);
    expect(((await r.json()) as { choices: { finish_reason: string }[] }).choices[0]?.finish_reason).toBe('length');

    // The API's request runs; the app's chat waits for it and is stopped while waiting: the API request is untouched.
    const api2 = complete(url as string, { max_tokens: 8 });
    await waitFor(() => stats().some((s) => s.activeRequests === 1 && s.completed === 2));
    await svc.generate('ui-2', [{ role: 'user', content: 'hi' }], DEFAULT_SAMPLING, 10);
    await waitFor(() => svc.getStateSync().status === 'generating');
    await svc.stop();
    await waitFor(() => events.some((e) => e.type === 'generation-error' && e.requestId === 'ui-2'));
    const j = (await (await api2).json()) as { choices: { text: string; finish_reason: string }[] };
    expect(j.choices[0]).toEqual(expect.objectContaining({ finish_reason: 'length', text: 't0 t1 t2 t3 t4 t5 t6 t7 ' }));
  });

  it('past the sequences and the queue: 429, counted as refused', async () => {
    const port = await freePort();
    const { url } = await svc.setApiServer({ enabled: true, port, apiKey: null });
    await svc.load(join(dir, 'm.gguf'), defaultSettings());
    const running = [complete(url as string, { max_tokens: 6 }), complete(url as string, { max_tokens: 6 }), complete(url as string, { max_tokens: 6 })];
    await waitFor(() => stats().some((s) => s.activeRequests === 1 && s.queued === 2));
    const refused = await complete(url as string, {});
    expect(refused.status).toBe(429);
    expect(stats().at(-1)?.refused).toBe(1);
    expect((await Promise.all(running)).map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it('the worker dying under a request is a 500; a model unloaded under one is a 503; both end the request', async () => {
    const port = await freePort();
    const { url } = await svc.setApiServer({ enabled: true, port, apiKey: null });
    await svc.load(join(dir, 'm.gguf'), defaultSettings());
    const a = complete(url as string, { max_tokens: 1000 });
    await waitFor(() => stats().some((s) => s.activeRequests === 1));
    await svc.killWorker();
    const ra = await a;
    expect(ra.status).toBe(500);
    expect(await ra.json()).toMatchObject({ error: { type: 'server_error', code: 'worker_crashed' } });
    expect((await complete(url as string, {})).status).toBe(503);

    await svc.restart();
    const b = complete(url as string, { max_tokens: 1000 });
    await waitFor(() => stats().filter((s) => s.activeRequests === 1).length > 1);
    await svc.unload();
    const rb = await b;
    expect(rb.status).toBe(503);
    expect(await rb.json()).toMatchObject({ error: { code: 'model_unloaded' } });
  });
});
