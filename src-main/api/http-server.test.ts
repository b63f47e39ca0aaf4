// The HTTP server in this process, over real sockets, with a fake backend: routes, access,
// limits, answers and streams in OpenAI's shapes, stop strings, the queue, failures before and
// during a stream, and a client that leaves mid-stream.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { request } from 'node:http';
import { connect } from 'node:net';
import { startApiServer, type RunningApiServer } from './http-server.js';
import { FAKE_MODEL, FakeBackend, crash } from './fake-backend.test-util.js';
import { unavailable } from './errors.js';

let backend: FakeBackend;
let srv: RunningApiServer;
let keyed: RunningApiServer;

beforeAll(async () => {
  backend = new FakeBackend();
  srv = await startApiServer({ backend, port: 0, body: { maxBytes: 64 * 1024, idleMs: 300, totalMs: 1500 } });
  keyed = await startApiServer({ backend, port: 0, apiKey: 'k3y' });
});

afterAll(async () => {
  await srv.close();
  await keyed.close();
});

afterEach(() => {
  backend.served = FAKE_MODEL;
  backend.failAfter = null;
  backend.tokenMs = 2;
});

const url = (p: string, s = srv) => `http://127.0.0.1:${s.port}${p}`;
const post = (p: string, body: unknown, headers: Record<string, string> = {}, s = srv) =>
  fetch(url(p, s), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const chat = (extra: Record<string, unknown> = {}) => ({ model: 'fake', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4, ...extra });
const text = (extra: Record<string, unknown> = {}) => ({ model: 'fake', prompt: 'Once', max_tokens: 4, ...extra });

/** The data of each server-sent event ('[DONE]' stays a string). */
function events(body: string): unknown[] {
  return body
    .split('\n\n')
    .filter((e) => e.startsWith('data: '))
    .map((e) => (e === 'data: [DONE]' ? '[DONE]' : JSON.parse(e.slice(6))));
}

/** A request with headers fetch would not send (another Host, an Origin). */
function raw(path: string, headers: Record<string, string>, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port: srv.port, path, method, headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    r.on('error', reject);
    r.end();
  });
}

describe('API server: routes and access', () => {
  it('lists the served model (also under /models), one by id, and none while nothing is loaded', async () => {
    for (const p of ['/v1/models', '/models']) {
      const r = await fetch(url(p));
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({
        object: 'list',
        data: [{ id: 'fake', aliases: [], tags: [], object: 'model', created: 1700000000, owned_by: 'ramforge', ramforge: { arch: 'llama', chat_template: true, ctx_per_sequence: 64, sequences: 2, policy: 'stream', aliases: ['fake.gguf'] } }],
      });
    }
    expect((await (await fetch(url('/v1/models/fake.gguf'))).json()) as object).toMatchObject({ id: 'fake', object: 'model' });
    const missing = await fetch(url('/v1/models/other'));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { type: 'not_found_error', code: 'model_not_found' } });
    backend.served = unavailable('no model is loaded', 'model_not_loaded');
    expect(await (await fetch(url('/v1/models'))).json()).toEqual({ object: 'list', data: [] });
    const h = await fetch(url('/health'));
    expect(h.status).toBe(503);
    backend.served = FAKE_MODEL;
    expect(await (await fetch(url('/health'))).json()).toEqual({ status: 'ok' });
  });

  it("every answer, an error too, carries OpenAI's x-request-id, a new one each time (openai-python's response.request_id)", async () => {
    const a = await fetch(url('/v1/models'));
    const b = await post('/v1/chat/completions', chat());
    const c = await fetch(url('/v1/nope'));
    const ids = [a, b, c].map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(3);
  });

  it('unknown routes are 404 and wrong methods 405, in the error shape', async () => {
    const r = await fetch(url('/v1/audio/speech'), { method: 'POST' });
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ error: { message: 'unknown route: POST /v1/audio/speech', type: 'not_found_error', param: null, code: 'unknown_route' } });
    const m = await fetch(url('/v1/chat/completions'));
    expect(m.status).toBe(405);
    expect(m.headers.get('allow')).toBe('POST');
  });

  it('with a key: 401 without it or with a wrong one (also for /v1/models), 200 with it', async () => {
    const none = await post('/v1/chat/completions', chat(), {}, keyed);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ error: { type: 'authentication_error', code: 'invalid_api_key' } });
    expect((await post('/v1/chat/completions', chat(), { authorization: 'Bearer wrong' }, keyed)).status).toBe(401);
    expect((await post('/v1/chat/completions', chat(), { authorization: 'Basic k3y' }, keyed)).status).toBe(401);
    expect((await fetch(url('/v1/models', keyed))).status).toBe(401);
    expect((await fetch(url('/v1/models', keyed), { headers: { authorization: 'Bearer k3y' } })).status).toBe(200);
    expect((await post('/v1/chat/completions', chat(), { authorization: 'Bearer k3y' }, keyed)).status).toBe(200);
  });

  it('on loopback: another Host name (DNS rebinding) and other sites\' pages are refused; this machine\'s pages are not', async () => {
    expect((await raw('/v1/models', { host: 'evil.example:80' })).status).toBe(403);
    expect((await raw('/v1/models', { host: `localhost:${srv.port}` })).status).toBe(200);
    expect((await raw('/v1/models', { host: `127.0.0.1:${srv.port}`, origin: 'https://evil.example' })).status).toBe(403);
    expect((await raw('/v1/models', { host: `127.0.0.1:${srv.port}`, origin: 'http://localhost:5173' })).status).toBe(200);
  });

  it('--cors *: every origin may call, never with credentials; the preflight needs no key, the request still does', async () => {
    const any = await startApiServer({ backend, port: 0, apiKey: 'k3y', cors: ['*'] });
    try {
      const pre = await fetch(url('/v1/chat/completions', any), { method: 'OPTIONS', headers: { origin: 'https://anywhere.example', 'access-control-request-method': 'POST' } });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('*');
      expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
      const denied = await post('/v1/chat/completions', chat(), { origin: 'https://anywhere.example' }, any);
      expect(denied.status).toBe(401);
      expect(denied.headers.get('access-control-allow-origin')).toBe('*');
      const ok = await post('/v1/chat/completions', chat(), { origin: 'https://anywhere.example', authorization: 'Bearer k3y' }, any);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
    } finally {
      await any.close();
    }
  });
});

describe('API server: request limits', () => {
  it('a body that is not JSON is 400 whatever its content type says, JSON is JSON under any content type, a body over the limit 413', async () => {
    const bad = await post('/v1/chat/completions', '{"model": ');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'invalid_json' } });
    const form = await fetch(url('/v1/chat/completions'), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' });
    expect(form.status).toBe(400);
    expect(await form.json()).toMatchObject({ error: { code: 'invalid_json' } });
    const curl = await fetch(url('/v1/chat/completions'), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: JSON.stringify(chat()) });
    expect(curl.status).toBe(200);
    const big = await post('/v1/completions', text({ prompt: 'x'.repeat(100_000) }));
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: { code: 'request_too_large' } });
  });

  it('a body over the limit without a length (chunked) is cut off with 413', async () => {
    const chunks = async function* () {
      for (let i = 0; i < 20; i++) yield new TextEncoder().encode('x'.repeat(10_000));
    };
    const r = await fetch(url('/v1/completions'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: chunks(), duplex: 'half' } as unknown as RequestInit);
    expect(r.status).toBe(413);
  });

  it('a body that stops arriving is answered 408 and the connection closed', async () => {
    const answer = await new Promise<string>((resolve) => {
      const s = connect(srv.port, '127.0.0.1');
      let got = '';
      s.on('data', (c: Buffer) => (got += c.toString()));
      s.on('close', () => resolve(got));
      s.write(`POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1:${srv.port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"model":`);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(answer).toMatch(/request_timeout/);
  });
});

describe('API server: answers', () => {
  it('chat, not streamed: one choice, usage, finish length at max_tokens, extras under ramforge', async () => {
    const r = await post('/v1/chat/completions', chat());
    expect(r.status).toBe(200);
    const j = (await r.json()) as Record<string, unknown>;
    expect(j).toMatchObject({
      object: 'chat.completion',
      model: 'fake',
      choices: [{ index: 0, message: { role: 'assistant', content: 'w0 w1 w2 w3 ' }, finish_reason: 'length' }],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
      ramforge: { policy: 'stream', tokens_per_pass: 1.5, bytes_read_per_token: 4096 },
    });
    expect(String(j.id)).toMatch(/^chatcmpl-/);
    expect(backend.calls.at(-1)).toMatchObject({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 4 });
  });

  it('a request without max_tokens may fill the sequence\'s context; the file name names the model too', async () => {
    await post('/v1/completions', text({ max_tokens: null, model: 'fake.gguf' }));
    expect(backend.calls.at(-1)).toMatchObject({ prompt: 'Once', maxTokens: 64 });
  });

  it('text completion with echo: the prompt, then the continuation', async () => {
    const j = (await (await post('/v1/completions', text({ echo: true, max_tokens: 2 }))).json()) as { object: string; choices: { text: string }[] };
    expect(j.object).toBe('text_completion');
    expect(j.choices[0]?.text).toBe('Oncew0 w1 ');
  });

  it('chat streamed: the role, the pieces, the finish, [DONE]; with include_usage a usage chunk before [DONE]', async () => {
    const r = await post('/v1/chat/completions', chat({ stream: true, stream_options: { include_usage: true } }));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const ev = events(await r.text()) as Record<string, unknown>[];
    expect(ev.at(-1)).toBe('[DONE]');
    const chunks = ev.slice(0, -1) as { object: string; choices: { delta?: { role?: string; content?: string }; finish_reason: string | null }[]; usage: unknown }[];
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant', content: '' });
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('w0 w1 w2 w3 ');
    const finish = chunks.at(-2);
    expect(finish?.choices[0]).toMatchObject({ delta: {}, finish_reason: 'length' });
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 }, ramforge: { policy: 'stream' } });
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
  });

  it('text streamed: text_completion chunks, the extras on the last one when usage was not asked for', async () => {
    const ev = events(await (await post('/v1/completions', text({ stream: true, max_tokens: 3 }))).text()) as Record<string, unknown>[];
    expect(ev.at(-1)).toBe('[DONE]');
    const chunks = ev.slice(0, -1) as { object: string; choices: { text: string; finish_reason: string | null }[]; ramforge?: unknown }[];
    expect(chunks.map((c) => c.choices[0]?.text).join('')).toBe('w0 w1 w2 ');
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('length');
    expect(chunks.at(-1)?.ramforge).toMatchObject({ policy: 'stream' });
    expect(chunks.every((c) => c.object === 'text_completion' && !('usage' in c))).toBe(true);
  });

  it('a stop string ends the generation early (its signal aborts), is cut from the text, finish stop; also streamed', async () => {
    const j = (await (await post('/v1/chat/completions', chat({ max_tokens: 8, stop: ['w3'] }))).json()) as { choices: { message: { content: string }; finish_reason: string }[] };
    expect(j.choices[0]).toMatchObject({ message: { content: 'w0 w1 w2 ' }, finish_reason: 'stop' });
    expect(backend.aborted.at(-1)).toBe(true);
    const ev = events(await (await post('/v1/completions', text({ max_tokens: 8, stop: '2 w', stream: true }))).text()) as { choices?: { text: string; finish_reason: string | null }[] }[];
    expect(ev.slice(0, -1).map((c) => c.choices?.[0]?.text ?? '').join('')).toBe('w0 w1 w');
    expect(ev.at(-2)?.choices?.[0]?.finish_reason).toBe('stop');
  });

  it("any name, or none, is the loaded model; another model on this machine is 404; chat on a model without a chat template goes on (the worker renders it with ChatML)", async () => {
    for (const model of ['gpt-4o', undefined]) {
      const ok = await post('/v1/chat/completions', chat({ model }));
      expect(ok.status).toBe(200);
      expect(await ok.json()).toMatchObject({ model: 'fake' });
    }
    backend.onDisk = { other: '/models/other.gguf' };
    const r = await post('/v1/chat/completions', chat({ model: 'other' }));
    backend.onDisk = {};
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({ error: { code: 'model_not_found', message: expect.stringMatching(/^the model 'other' is on this machine but not loaded: this server serves 'fake'/) } });
    backend.served = { ...FAKE_MODEL, hasChatTemplate: false };
    // The worker renders it with ChatML (prompt-tokens.ts): the server sends the turns on.
    const t = await post('/v1/chat/completions', chat());
    expect(t.status).toBe(200);
    expect(backend.calls.at(-1)).toMatchObject({ messages: [{ role: 'user', content: 'hi' }] });
    expect(((await (await post('/v1/completions', text())).json()) as { choices: unknown[] }).choices).toHaveLength(1);
  });

  it('no model: 503 in the error shape', async () => {
    backend.served = unavailable('no model is loaded', 'model_not_loaded');
    const r = await post('/v1/completions', text());
    expect(r.status).toBe(503);
    expect(await r.json()).toMatchObject({ error: { type: 'unavailable_error', code: 'model_not_loaded' } });
  });
});

describe('API server: concurrency and failures', () => {
  it('two run at once, two wait, the next is refused 429; all that were accepted complete', async () => {
    // Slow enough that none of the four ends before the fifth arrives, on a loaded machine too;
    // the test waits for the four to be in (no fixed delay).
    backend.tokenMs = 200;
    const accepted = Array.from({ length: 4 }, () => post('/v1/completions', text({ max_tokens: 3 })));
    await vi.waitFor(() => expect(backend.gate.counts()).toMatchObject({ active: 2, queued: 2 }), { timeout: 10_000, interval: 5 });
    const refused = await post('/v1/completions', text());
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { type: 'rate_limit_error', code: 'queue_full' } });
    const rs = await Promise.all(accepted);
    expect(rs.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(backend.gate.counts()).toMatchObject({ active: 0, queued: 0 });
  });

  it('the worker crashing before the first token is a 500; during a stream, an error event and the end (no [DONE])', async () => {
    backend.failAfter = { tokens: 0, error: crash() };
    const r = await post('/v1/chat/completions', chat());
    expect(r.status).toBe(500);
    expect(await r.json()).toMatchObject({ error: { type: 'server_error', code: 'worker_crashed' } });
    backend.failAfter = { tokens: 2, error: crash() };
    const s = await post('/v1/chat/completions', chat({ stream: true }));
    expect(s.status).toBe(200);
    const ev = events(await s.text());
    expect(ev.at(-1)).toMatchObject({ error: { code: 'worker_crashed' } });
    expect(ev).not.toContain('[DONE]');
  });

  it('a client that leaves mid-stream aborts its generation at once; the server goes on serving', async () => {
    backend.tokenMs = 5;
    const before = backend.aborted.length;
    const r = await post('/v1/completions', text({ max_tokens: 100_000, stream: true }));
    const reader = r.body?.getReader();
    await reader?.read();
    await reader?.cancel();
    for (let i = 0; i < 200 && backend.aborted.length === before; i++) await new Promise((res) => setTimeout(res, 10));
    expect(backend.aborted.slice(before)).toEqual([true]);
    expect(backend.running).toBe(0);
    expect((await post('/v1/completions', text())).status).toBe(200);
  });
});
