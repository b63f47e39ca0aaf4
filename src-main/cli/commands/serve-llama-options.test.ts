// llama-server's server-wide options on a real `ramforge serve --api` (the built CLI, a real
// worker, a synthetic model). Sampling defaults: --temp, --seed, --top-k and --n-predict set what
// a request gets for a field it leaves out, on every API (OpenAI's, llama-server's, Ollama's); a
// field the request sets wins; /props and /completion's generation_settings say what ran; without
// them a request gets each API's own defaults. Names: --alias and --tags (the model listed under
// the first alias, answering to all). GET /slots (on unless --no-slots): a slot per sequence,
// busy while a request runs in it and free once its client leaves. Also /completion's
// response_fields and its prompt text, and today's date handed to chat templates as llama.cpp
// hands it (date_string, datetime, strftime_now).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../built-cli.test-util.js';
import { serveApi, stopAllServed, synthModel, type Served } from './serve-api.test-util.js';

let dir = '';
let model = '';
let withDefaults: Served;
let plain: Served;
let dated: Served;

/** A chat template that prints the date variables llama.cpp gives templates (Llama 3.x's date_string…). */
const DATE_TEMPLATE = "{{ 'date=' + date_string + '|datetime=' + datetime + '|iso=' + strftime_now('%Y-%m-%d') }}{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}";

const post = async (s: Served, path: string, body: object) => {
  const r = await fetch(`http://127.0.0.1:${s.port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Record<string, any> };
};
const props = async (s: Served) => (await (await fetch(`http://127.0.0.1:${s.port}/props`)).json()) as { default_generation_settings: { params: Record<string, unknown> } };
const complete = (s: Served, body: object) => post(s, '/v1/completions', { prompt: 'Once upon a time', ...body });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-serve-defaults-'));
  model = synthModel(dir, 'tiny.gguf', ['--seed', '11']);
  [withDefaults, plain] = await Promise.all([
    serveApi(dir, ['--parallel', '2', '--temp', '0.7', '--seed', '42', '--top-k', '20', '--n-predict', '6', '--alias', 'tiny-b,code', '--tags', 'chat,small', model]),
    serveApi(dir, ['--parallel', '1', '--no-slots', model]),
  ]);
  const template = join(dir, 'date.jinja');
  await writeFile(template, DATE_TEMPLATE);
  dated = await serveApi(dir, ['--parallel', '1', synthModel(dir, 'dated.gguf', ['--seed', '12', '--chat-template-file', template])]);
}, 180_000);

afterAll(async () => {
  await stopAllServed(dir, [withDefaults, plain, dated]);
});

describe('serve --api with sampling defaults', () => {
  it("/props shows the defaults given, and OpenAI's own without them", async () => {
    expect((await props(withDefaults)).default_generation_settings.params).toMatchObject({ seed: 42, temperature: 0.7, top_k: 20, top_p: 1, n_predict: 6 });
    expect((await props(plain)).default_generation_settings.params).toMatchObject({ seed: 4294967295, temperature: 1, top_k: 0, n_predict: -1 });
  });

  it('a request without a limit stops at --n-predict; one with a limit keeps its own', async () => {
    const open = await complete(withDefaults, {});
    expect(open.status).toBe(200);
    expect(open.body.usage.completion_tokens).toBe(6);
    expect(open.body.choices[0].finish_reason).toBe('length');
    expect((await complete(withDefaults, { max_tokens: 3 })).body.usage.completion_tokens).toBe(3);
    // Ollama's route too (num_predict unset).
    const ollama = await post(withDefaults, '/api/generate', { model: 'code', prompt: 'Once upon a time', stream: false });
    expect(ollama.body.eval_count).toBe(6);
  });

  it('the default seed makes equal requests answer alike; without it each request draws its own', async () => {
    const a = await complete(withDefaults, { max_tokens: 12 });
    const b = await complete(withDefaults, { max_tokens: 12 });
    expect(a.body.choices[0].text).toBe(b.body.choices[0].text);
    const texts = new Set<string>();
    for (let i = 0; i < 3; i++) texts.add((await complete(plain, { max_tokens: 12 })).body.choices[0].text as string);
    expect(texts.size).toBeGreaterThan(1);
  });

  it("/completion's generation_settings: the defaults where the request is silent, the request's own values where it is not", async () => {
    const silent = await post(withDefaults, '/completion', { prompt: 'Once upon a time' });
    expect(silent.body.generation_settings).toMatchObject({ seed: 42, temperature: 0.7, top_k: 20, n_predict: 6, logit_bias: [] });
    expect(silent.body.tokens_predicted).toBe(6);
    const own = await post(withDefaults, '/completion', { prompt: 'Once upon a time', temperature: 0, seed: 7, top_k: 0, n_predict: 2 });
    expect(own.body.generation_settings).toMatchObject({ seed: 7, temperature: 0, top_k: 0, n_predict: 2 });
    expect(own.body.tokens_predicted).toBe(2);
  });

  it("/completion's response_fields keep only the fields named (a slash reaches inside), and the prompt reads as the model read it", async () => {
    const r = await post(withDefaults, '/completion', { prompt: 'I believe', n_predict: 4, response_fields: ['content', 'generation_settings/n_predict', 'prompt', 'no/such'] });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['content', 'generation_settings/n_predict', 'prompt']);
    expect(r.body['generation_settings/n_predict']).toBe(4);
    // The BOS token written out, as llama-server shows it.
    expect(r.body.prompt).toBe('<s> I believe');
    const bad = await post(withDefaults, '/completion', { prompt: 'x', response_fields: 'content' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/response_fields/);
  });

  it('the flags need --api and are checked as run checks them (exit 2)', () => {
    const noApi = runCli(['serve', '--temp', '0.5', model], { env: { RAMFORGE_DATA: join(dir, 'data') } });
    expect(noApi.code).toBe(2);
    expect(noApi.stderr).toMatch(/--temperature is a default for API requests: it needs --api/);
    const bad = runCli(['serve', '--api', '--no-ui', '--top-p', '2', model], { env: { RAMFORGE_DATA: join(dir, 'data') } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--top-p must be 0\.\.1/);
  });
});

describe('serve --api --alias --tags', () => {
  it("lists the model under the first alias in sorted order, with every alias and tag (llama-server's shape); requests may name any alias or the file, and answers carry the listed id", async () => {
    const list = (await (await fetch(`${withDefaults.url}/models`)).json()) as { data: { id: string; aliases: string[]; tags: string[] }[] };
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ id: 'code', aliases: ['tiny-b', 'code'], tags: ['chat', 'small'] });
    for (const name of ['code', 'tiny-b', 'tiny']) expect((await complete(withDefaults, { model: name, max_tokens: 1 })).status, name).toBe(200);
    expect((await complete(withDefaults, { max_tokens: 1 })).body.model).toBe('code');
    // Without --alias: the file's name, and no aliases or tags of the user's.
    const plainList = (await (await fetch(`${plain.url}/models`)).json()) as { data: { id: string; aliases: string[]; tags: string[] }[] };
    expect(plainList.data[0]).toMatchObject({ id: 'tiny', aliases: [], tags: [] });
    expect(((await (await fetch(`http://127.0.0.1:${withDefaults.port}/props`)).json()) as { model_alias: string }).model_alias).toBe('code');
  });

  it('refuses a name with a space or a comma-only list item with exit 2, and --alias without --api', () => {
    const spaced = runCli(['serve', '--api', '--no-ui', '--alias', 'a b', model], { env: { RAMFORGE_DATA: join(dir, 'data') } });
    expect(spaced.code).toBe(2);
    expect(spaced.stderr).toMatch(/--alias: alias 'a b' must be 1 to 256 printable characters/);
    const noApi = runCli(['serve', '--alias', 'a', model], { env: { RAMFORGE_DATA: join(dir, 'data') } });
    expect(noApi.code).toBe(2);
    expect(noApi.stderr).toMatch(/--alias names the model for the API: it needs --api/);
  });
});

describe('GET /slots', () => {
  const slots = async () => (await (await fetch(`http://127.0.0.1:${withDefaults.port}/slots`)).json()) as { id: number; n_ctx: number; is_processing: boolean }[];

  it('lists a slot per sequence with its context; one is busy while a request runs and free again once its client has gone', async () => {
    const ctx = ((await props(withDefaults)) as unknown as { default_generation_settings: { n_ctx: number } }).default_generation_settings.n_ctx;
    expect(await slots()).toEqual([
      { id: 0, n_ctx: ctx, is_processing: false },
      { id: 1, n_ctx: ctx, is_processing: false },
    ]);
    const gone = new AbortController();
    const running = fetch(`http://127.0.0.1:${withDefaults.port}/completion`, { method: 'POST', body: JSON.stringify({ prompt: 'Once upon a time', n_predict: 100000, stream: true }), signal: gone.signal });
    const res = await running;
    const reader = res.body!.getReader();
    await reader.read();
    expect((await slots()).map((s) => s.is_processing)).toEqual([true, false]);
    gone.abort();
    await reader.read().catch(() => undefined);
    let free = false;
    for (let i = 0; i < 100 && !free; i++) {
      free = (await slots()).every((s) => !s.is_processing);
      if (!free) await new Promise((r) => setTimeout(r, 50));
    }
    expect(free).toBe(true);
  });

  it("is llama-server's 501 under --no-slots", async () => {
    const r = await fetch(`http://127.0.0.1:${plain.port}/slots`);
    expect(r.status).toBe(501);
    expect(((await r.json()) as { error: { type: string; message: string } }).error).toMatchObject({ type: 'not_supported_error', message: expect.stringMatching(/--slots/) });
  });
});

describe("today's date in chat templates", () => {
  it("hands a template llama.cpp's date_string, datetime and strftime_now, in local time", async () => {
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    const two = (n: number) => String(n).padStart(2, '0');
    const before = new Date();
    const r = await post(dated, '/apply-template', { messages: [{ role: 'user', content: 'What is today?' }], tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }] });
    expect(r.status).toBe(200);
    // Around midnight the request may see the next day: either is right.
    const days = [before, new Date()].map((d) => `date=${two(d.getDate())} ${months[d.getMonth()]} ${d.getFullYear()}|datetime=${months[d.getMonth()]} ${two(d.getDate())} ${d.getFullYear()}|iso=${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}`);
    expect(days.some((d) => (r.body.prompt as string).startsWith(d)), r.body.prompt as string).toBe(true);
  });
});

describe('POST /v1/chat/completions/input_tokens', () => {
  it("counts the prompt tokens a chat completion of the same body is given (llama-server's route), and checks the body as chat does", async () => {
    const messages = [
      { role: 'system', content: 'Book' },
      { role: 'user', content: 'What is the best book' },
    ];
    const counted = await post(withDefaults, '/v1/chat/completions/input_tokens', { messages });
    expect(counted.status).toBe(200);
    expect(Object.keys(counted.body)).toEqual(['input_tokens']);
    const ran = await post(withDefaults, '/v1/chat/completions', { messages, max_tokens: 1 });
    expect(counted.body.input_tokens).toBe(ran.body.usage.prompt_tokens);
    expect((await post(withDefaults, '/chat/completions/input_tokens', { messages })).body.input_tokens).toBe(counted.body.input_tokens);
    const bad = await post(withDefaults, '/v1/chat/completions/input_tokens', { messages: 'hi' });
    expect(bad.status).toBe(400);
  });
});
