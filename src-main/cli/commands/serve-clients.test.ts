// The clients people already use, against a real `ramforge serve --api` (the built CLI, a real
// worker, synthetic models this test writes), as they send requests: a model name of their own
// or none, parameters other servers accept (cache_prompt, repetition_penalty, typical_p…),
// Ollama's options it ignores. Each is served by the loaded model, and what was not applied is
// named back in X-Ramforge-Ignored and the log; a model on this machine that is not loaded is a
// 404 saying so; a wrong type is still a 400. Bodies without a JSON content type (curl -d),
// --cors and its preflight, 503 while the model loads, Ollama's heartbeat, /props, /api/ps;
// Ollama's embed truncation and dimensions, keep_alive 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { Ollama } from 'ollama';
import { serveApi, stopServed, synthModel, type Served } from './serve-api.test-util.js';

let dir = '';
let server: Served;
/** A front-end of another origin that --cors lets in. */
const APP = 'https://app.example';

const post = (path: string, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
  fetch(`http://127.0.0.1:${server.port}${path}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });

/** What a client asking at once, while the first server loads its model, was answered. */
const early: { route: string; status: number; body: string; cors: string | null }[] = [];
let plainPreflight: Response;

/** The first answers while the model loads: the model list, the health check, a chat (all without waiting). */
async function askWhileLoading(port: number): Promise<void> {
  const at = (p: string) => `http://127.0.0.1:${port}${p}`;
  for (let i = 0; i < 3; i++) {
    const asked = await Promise.all([
      fetch(at('/v1/models')),
      fetch(at('/health')),
      fetch(at('/v1/chat/completions'), { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 }) }),
    ]);
    for (const [j, r] of asked.entries()) early.push({ route: ['/v1/models', '/health', '/v1/chat/completions'][j] as string, status: r.status, body: await r.text(), cors: r.headers.get('access-control-allow-origin') });
  }
  // No --cors on this server: a preflight is answered, without letting any origin in.
  plainPreflight = await fetch(at('/v1/chat/completions'), { method: 'OPTIONS', headers: { 'access-control-request-method': 'POST' } });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-serve-clients-'));
  // Another model this machine knows (the app lists it among the recent ones once it was loaded).
  const other = await serveApi(dir, [synthModel(dir, 'other.gguf', ['--seed', '3'])], askWhileLoading);
  await stopServed(other);
  server = await serveApi(dir, ['--cors', `${APP}, http://localhost:5173`, synthModel(dir, 'chat.gguf', ['--seed', '5'])]);
}, 240_000);

afterAll(async () => {
  await stopServed(server);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('ramforge serve --api with the requests clients already send', () => {
  it("a request without a model, or naming one of its own, is served by the loaded model; a model on this machine that is not loaded is a 404 saying so", async () => {
    const openai = new OpenAI({ baseURL: server.url, apiKey: 'none', maxRetries: 0 });
    const r = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 });
    expect(r.model).toBe('chat');
    expect(r.usage?.completion_tokens).toBe(3);
    const none = await post('/v1/completions', { prompt: 'Once', max_tokens: 2 });
    expect(none.status).toBe(200);
    expect(((await none.json()) as { model: string }).model).toBe('chat');
    const ollama = await new Ollama({ host: `http://127.0.0.1:${server.port}` }).generate({ model: 'llama3.2', prompt: 'hi', options: { num_predict: 2 } });
    expect(ollama.eval_count).toBe(2);

    const onDisk = await openai.chat.completions.create({ model: 'other', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 }).catch((e: unknown) => e);
    expect(onDisk).toBeInstanceOf(OpenAI.NotFoundError);
    expect((onDisk as Error).message).toMatch(/the model 'other' is on this machine but not loaded: this server serves 'chat'/);
    const o = await post('/api/chat', { model: 'other:latest', messages: [{ role: 'user', content: 'hi' }] });
    expect(o.status).toBe(404);
    expect(((await o.json()) as { error: string }).error).toMatch(/is on this machine but not loaded/);
  });

  it('parameters other servers accept are ignored and named in X-Ramforge-Ignored and the log; a wrong type is still a 400', async () => {
    const r = await post('/v1/chat/completions', {
      model: 'chat',
      messages: [{ role: 'user', content: 'hi', reasoning_content: '' }],
      max_tokens: 2,
      cache_prompt: true,
      repetition_penalty: 1.1,
      chat_template_kwargs: { enable_thinking: false },
      logit_bias: { '1': -100 },
    });
    expect(r.status).toBe(200);
    // logit_bias is applied (serve-sampling-bias.test.ts), so not named.
    expect(r.headers.get('x-ramforge-ignored')?.split(',').sort()).toEqual(['cache_prompt', 'chat_template_kwargs', 'messages[0].reasoning_content', 'repetition_penalty']);
    expect(server.out()).toMatch(/ramforge API: \/chat\/completions: ignored cache_prompt,repetition_penalty,chat_template_kwargs,messages\[0\]\.reasoning_content/);
    const plain = await post('/v1/completions', { prompt: 'x', max_tokens: 2 });
    expect(plain.headers.get('x-ramforge-ignored')).toBeNull();
    const wrong = await post('/v1/completions', { prompt: 'x', max_tokens: 2, temperature: 'hot', cache_prompt: true });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: { param: 'temperature', code: 'invalid_type' } });
  });

  it("Ollama's documented request with options (typical_p, mirostat, tfs_z, one it does not know) is served; what is not run is named", async () => {
    const r = await post('/api/generate', {
      model: 'chat',
      prompt: 'Why is the sky blue?',
      stream: false,
      options: { num_keep: 5, seed: 42, num_predict: 3, top_k: 20, top_p: 0.9, min_p: 0, typical_p: 0.7, repeat_last_n: 33, temperature: 0.8, repeat_penalty: 1.2, presence_penalty: 1.5, frequency_penalty: 1, mirostat: 1, mirostat_tau: 0.8, mirostat_eta: 0.6, tfs_z: 0.5, penalize_newline: true, numa: false, num_ctx: 64, num_batch: 2, num_gpu: 1, main_gpu: 0, use_mmap: true, num_thread: 8, some_future_option: 1 },
    });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { eval_count: number }).eval_count).toBe(3);
    expect(r.headers.get('x-ramforge-ignored')?.split(',').sort()).toEqual(['options.mirostat', 'options.some_future_option', 'options.tfs_z', 'options.typical_p']);
    const wrong = await post('/api/generate', { model: 'chat', prompt: 'x', stream: false, options: { mirostat: 'yes' } });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: string }).error).toMatch(/options\.mirostat/);
  });

  it('while the model loads, /v1/models, /health and a chat are 503 "loading" (never an empty model list); then they answer', async () => {
    expect(early.length).toBe(9);
    for (const e of early) {
      expect(e.status, `${e.route}: ${e.body}`).toBe(503);
      expect(JSON.parse(e.body), e.route).toMatchObject({ error: { type: 'unavailable_error', code: 'model_loading' } });
    }
    const models = await fetch(`http://127.0.0.1:${server.port}/v1/models`);
    expect(models.status).toBe(200);
    expect(((await models.json()) as { data: { id: string }[] }).data.map((m) => m.id)).toEqual(['chat']);
  });

  it("a body sent without Content-Type: application/json (curl -d) is read when it is JSON; one that is not is a 400", async () => {
    const curl = await post('/api/generate', { model: 'chat', prompt: 'hi', stream: false, options: { num_predict: 2 } }, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(curl.status).toBe(200);
    expect(((await curl.json()) as { eval_count: number }).eval_count).toBe(2);
    const none = await fetch(`http://127.0.0.1:${server.port}/v1/completions`, { method: 'POST', body: new TextEncoder().encode(JSON.stringify({ prompt: 'x', max_tokens: 1 })) });
    expect(none.status).toBe(200);
    const form = await post('/v1/completions', 'prompt=x&max_tokens=1', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(400);
    expect(await form.json()).toMatchObject({ error: { code: 'invalid_json' } });
  });

  it('--cors: the listed origin gets its preflight and answers it can read (with X-Ramforge-Ignored and X-Request-Id), with credentials; another origin is refused; without --cors no origin is let in', async () => {
    const pre = await fetch(`http://127.0.0.1:${server.port}/v1/chat/completions`, { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' } });
    expect(pre.status).toBe(204);
    expect(Object.fromEntries([...pre.headers].filter(([k]) => k.startsWith('access-control-')))).toEqual({
      'access-control-allow-origin': APP,
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'POST, OPTIONS',
      'access-control-allow-headers': 'authorization, content-type',
      'access-control-expose-headers': 'x-ramforge-ignored, x-request-id',
      'access-control-max-age': '600',
    });
    const r = await post('/v1/completions', { prompt: 'x', max_tokens: 1, cache_prompt: true }, { 'content-type': 'application/json', origin: APP });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe(APP);
    expect(r.headers.get('access-control-expose-headers')).toBe('x-ramforge-ignored, x-request-id');
    expect(r.headers.get('x-ramforge-ignored')).toBe('cache_prompt');
    const other = await post('/v1/completions', { prompt: 'x', max_tokens: 1 }, { 'content-type': 'text/plain', origin: 'https://evil.example' });
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();

    expect(plainPreflight.status).toBe(204);
    expect(plainPreflight.headers.get('allow')).toBe('POST, OPTIONS');
    expect(plainPreflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(early.every((e) => e.cors === null)).toBe(true);
  });

  it("GET / and HEAD / answer Ollama's heartbeat; /props and /api/ps tell the context a request gets", async () => {
    const at = (p: string) => `http://127.0.0.1:${server.port}${p}`;
    const root = await fetch(at('/'));
    expect([root.status, await root.text()]).toEqual([200, 'Ollama is running']);
    const head = await fetch(at('/'), { method: 'HEAD' });
    expect(head.status).toBe(200);
    const props = (await (await fetch(at('/props'))).json()) as { default_generation_settings: { n_ctx: number }; total_slots: number; model_path: string; chat_template: string };
    expect(props.total_slots).toBeGreaterThanOrEqual(1);
    expect(props.default_generation_settings.n_ctx).toBeGreaterThan(0);
    expect(props.model_path).toBe('chat.gguf');
    expect(props.chat_template.length).toBeGreaterThan(0);
    const ps = (await new Ollama({ host: at('') }).ps()).models[0] as unknown as { name: string; context_length: number };
    expect(ps.name).toBe('chat:latest');
    expect(ps.context_length).toBe(props.default_generation_settings.n_ctx);
  });

  it("Ollama's /api/embed truncates an input longer than an embedding takes (truncate: false refuses it) and shortens to `dimensions`", async () => {
    const ollama = new Ollama({ host: `http://127.0.0.1:${server.port}` });
    const long = await ollama.embed({ model: 'chat', input: 'word '.repeat(2000) });
    expect(long.prompt_eval_count).toBe(512);
    const full = long.embeddings[0] as number[];
    const refused = await ollama.embed({ model: 'chat', input: 'word '.repeat(2000), truncate: false }).catch((e: unknown) => e);
    expect((refused as { status_code: number }).status_code).toBe(400);
    expect((refused as Error).message).toMatch(/embeddings take at most 512/);
    const short = (await ollama.embed({ model: 'chat', input: 'word '.repeat(2000), dimensions: 8 })).embeddings[0] as number[];
    expect(short).toHaveLength(8);
    expect(Math.hypot(...short)).toBeCloseTo(1, 5);
    const head = full.slice(0, 8);
    short.forEach((v, i) => expect(v).toBeCloseTo((head[i] as number) / Math.hypot(...head), 5));
  });

  it('keep_alive 0 unloads the model (done_reason unload; /api/ps empty), and the next request loads it again with the same settings', async () => {
    const ollama = new Ollama({ host: `http://127.0.0.1:${server.port}` });
    const before = (await ollama.ps()).models[0] as unknown as { context_length: number };
    const gone = await ollama.generate({ model: 'chat', prompt: '', keep_alive: 0 });
    expect(gone.done_reason).toBe('unload');
    expect((await ollama.ps()).models).toEqual([]);
    expect((await fetch(`http://127.0.0.1:${server.port}/health`)).status).toBe(503);
    const again = await ollama.chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], options: { num_predict: 2 } });
    expect(again.eval_count).toBe(2);
    expect((await ollama.ps()).models[0]).toMatchObject({ name: 'chat:latest', context_length: before.context_length });
    // With a prompt: answered, then unloaded.
    const last = await ollama.generate({ model: 'chat', prompt: 'hi', keep_alive: '0s', options: { num_predict: 1 } });
    expect(last.eval_count).toBe(1);
    expect((await ollama.ps()).models).toEqual([]);
    expect((await new OpenAI({ baseURL: server.url, apiKey: 'none', maxRetries: 0 }).completions.create({ model: 'chat', prompt: 'x', max_tokens: 1 })).model).toBe('chat');
  });

  it('n > 1 and a batch of prompts on /v1/completions answer every choice, prompt by prompt; streamed, each choice streams under its index', async () => {
    const openai = new OpenAI({ baseURL: server.url, apiKey: 'none', maxRetries: 0 });
    const prompts = ['Once upon a time', 'The sea'];
    const solo = await Promise.all(prompts.map((prompt) => openai.completions.create({ model: 'chat', prompt, max_tokens: 4, temperature: 0 })));
    const batch = await openai.completions.create({ model: 'chat', prompt: prompts, n: 2, max_tokens: 4, temperature: 0 });
    expect(batch.choices.map((c) => c.index)).toEqual([0, 1, 2, 3]);
    expect(batch.choices.map((c) => c.text)).toEqual([solo[0], solo[0], solo[1], solo[1]].map((r) => r?.choices[0]?.text));
    expect(batch.usage?.completion_tokens).toBe(16);
    expect(batch.usage?.prompt_tokens).toBe((solo[0]?.usage?.prompt_tokens ?? 0) + (solo[1]?.usage?.prompt_tokens ?? 0));
    const chat = await openai.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], n: 3, max_tokens: 3, seed: 11 });
    expect(chat.choices.map((c) => [c.index, c.message.role, c.finish_reason])).toEqual([0, 1, 2].map((i) => [i, 'assistant', 'length']));
    // Streamed: chunks of the four choices interleave; each choice's text, put together by index,
    // is the answer at once, each ends with its own finish chunk, and the usage comes last.
    const texts = ['', '', '', ''];
    const finishes: (string | null)[] = [null, null, null, null];
    let usage: { completion_tokens: number; prompt_tokens: number } | null = null;
    for await (const chunk of await openai.completions.create({ model: 'chat', prompt: prompts, n: 2, max_tokens: 4, temperature: 0, stream: true, stream_options: { include_usage: true } })) {
      for (const c of chunk.choices) {
        texts[c.index] += c.text;
        if (c.finish_reason) finishes[c.index] = c.finish_reason;
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(texts).toEqual(batch.choices.map((c) => c.text));
    expect(finishes).toEqual(['length', 'length', 'length', 'length']);
    expect(usage).toMatchObject({ completion_tokens: 16, prompt_tokens: batch.usage?.prompt_tokens });
    const roles = new Map<number, string>();
    for await (const chunk of await openai.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], n: 2, max_tokens: 3, temperature: 0, stream: true }))
      for (const c of chunk.choices) if (c.delta.role) roles.set(c.index, c.delta.role);
    expect([...roles.entries()].sort()).toEqual([
      [0, 'assistant'],
      [1, 'assistant'],
    ]);
  });

  it("token ids as the prompt of /v1/completions and as the input of /v1/embeddings are the model's own tokens: the same answer as the text they spell", async () => {
    const at = (p: string) => `http://127.0.0.1:${server.port}${p}`;
    const openai = new OpenAI({ baseURL: server.url, apiKey: 'none', maxRetries: 0 });
    const text = await openai.completions.create({ model: 'chat', prompt: 'Once upon a time', max_tokens: 4, temperature: 0 });
    // The text's own tokens, as the worker tokenizes a prompt (with BOS): llama-server's /tokenize.
    const ids = ((await (await fetch(at('/tokenize'), { method: 'POST', body: JSON.stringify({ content: 'Once upon a time', add_special: true }) })).json()) as { tokens: number[] }).tokens;
    expect(ids.length).toBe(text.usage?.prompt_tokens);
    const byIds = await openai.completions.create({ model: 'chat', prompt: ids, max_tokens: 4, temperature: 0 });
    expect(byIds.choices[0]?.text).toBe(text.choices[0]?.text);
    const batch = await openai.completions.create({ model: 'chat', prompt: [ids, ids], max_tokens: 4, temperature: 0 });
    expect(batch.choices.map((c) => c.text)).toEqual([text.choices[0]?.text, text.choices[0]?.text]);
    // Embeddings tokenize without parsing special tokens, the same ids here (the text has none).
    const e1 = (await openai.embeddings.create({ model: 'chat', input: [ids], encoding_format: 'float' })).data[0];
    const e2 = (await openai.embeddings.create({ model: 'chat', input: 'Once upon a time', encoding_format: 'float' })).data[0];
    expect(e1?.embedding.length).toBeGreaterThan(0);
    e1?.embedding.forEach((v, i) => expect(v).toBeCloseTo(e2?.embedding[i] as number, 5));
    const back = (await (await fetch(at('/detokenize'), { method: 'POST', body: JSON.stringify({ tokens: ids }) })).json()) as { content: string };
    expect(back.content).toContain('Once upon a time');
    const pieces = (await (await fetch(at('/tokenize'), { method: 'POST', body: JSON.stringify({ content: 'Once upon', with_pieces: true }) })).json()) as { tokens: { id: number; piece: string }[] };
    // A SentencePiece vocabulary writes the word boundary as a leading space.
    expect(pieces.tokens.map((t) => t.piece).join('').trim()).toBe('Once upon');
    const outside = await openai.completions.create({ model: 'chat', prompt: [10_000_000], max_tokens: 1 }).catch((e: unknown) => e);
    expect(outside).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it("llama-server's /completion: its field names, its answer (content, stop, tokens_predicted, stop_type, timings), streamed as its events", async () => {
    const at = `http://127.0.0.1:${server.port}/completion`;
    const openai = new OpenAI({ baseURL: server.url, apiKey: 'none', maxRetries: 0 });
    const same = await openai.completions.create({ model: 'chat', prompt: 'Once upon a time', max_tokens: 4, temperature: 0 });
    const body = { prompt: 'Once upon a time', n_predict: 4, temperature: 0, cache_prompt: true };
    const r = await fetch(at, { method: 'POST', body: JSON.stringify(body) });
    expect(r.headers.get('x-ramforge-ignored')).toBe('cache_prompt');
    const j = (await r.json()) as { content: string; stop: boolean; tokens_predicted: number; tokens_evaluated: number; stop_type: string; timings: { predicted_n: number } };
    expect(j).toMatchObject({ content: same.choices[0]?.text, stop: true, tokens_predicted: 4, tokens_evaluated: same.usage?.prompt_tokens, stop_type: 'limit', timings: { predicted_n: 4 } });
    const s = await fetch(at, { method: 'POST', body: JSON.stringify({ ...body, stream: true }) });
    const events = (await s.text()).split('\n\n').filter((e) => e.startsWith('data: ')).map((e) => JSON.parse(e.slice(6)) as { content: string; stop: boolean });
    expect(events.at(-1)?.stop).toBe(true);
    expect(events.slice(0, -1).every((e) => !e.stop)).toBe(true);
    expect(events.map((e) => e.content).join('')).toBe(same.choices[0]?.text);
    const bad = await fetch(at, { method: 'POST', body: JSON.stringify({ prompt: 'x', n_predict: 'many' }) });
    expect(bad.status).toBe(400);
  });

  it("llama-server's /completion prompt forms: a batch answered as a list in order, ids and text mixed in one sequence, prompt_string objects", async () => {
    const at = `http://127.0.0.1:${server.port}/completion`;
    const ask = async (prompt: unknown) => {
      const r = await fetch(at, { method: 'POST', body: JSON.stringify({ prompt, n_predict: 3, temperature: 0 }) });
      expect(r.status, await r.clone().text()).toBe(200);
      return (await r.json()) as unknown;
    };
    const ids = ((await (await fetch(`http://127.0.0.1:${server.port}/tokenize`, { method: 'POST', body: JSON.stringify({ content: 'Once upon a time', add_special: true }) })).json()) as { tokens: number[] }).tokens;
    const one = (await ask(ids)) as { content: string; tokens_evaluated: number };
    const batch = (await ask([ids, 'Once upon a time', { prompt_string: 'Once upon a time' }])) as { content: string }[];
    expect(batch.map((b) => b.content)).toEqual([one.content, one.content, one.content]);
    // Ids, then a text: the text is tokenized where it stands, without a BOS of its own.
    const rest = ((await (await fetch(`http://127.0.0.1:${server.port}/tokenize`, { method: 'POST', body: JSON.stringify({ content: ' upon a time' }) })).json()) as { tokens: number[] }).tokens;
    const head = ids.slice(0, 2);
    const mixed = (await ask([...head, ' upon a time'])) as { content: string; tokens_evaluated: number };
    const spelt = (await ask([...head, ...rest])) as { content: string; tokens_evaluated: number };
    expect(mixed).toMatchObject({ content: spelt.content, tokens_evaluated: head.length + rest.length });
    const streamed = await fetch(at, { method: 'POST', body: JSON.stringify({ prompt: ['a', 'b'], stream: true }) });
    expect(streamed.status).toBe(400);
  });
});
