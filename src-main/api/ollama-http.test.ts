// Ollama's routes on the API server, over real sockets with the fake backend: the model list,
// show, version, chat and generate as NDJSON streams and single objects, what each option
// becomes for the worker, errors in Ollama's `{"error"}` shape before and during a stream.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type RunningApiServer } from './http-server.js';
import { FAKE_MODEL, FakeBackend, crash } from './fake-backend.test-util.js';
import { unavailable } from './errors.js';
import { RANDOM_SEED } from './generation-defaults.js';

let backend: FakeBackend;
let srv: RunningApiServer;
let keyed: RunningApiServer;

const FACTS = { sizeBytes: 123456, parameterCount: 1_230_000, fileType: 7, chatTemplate: '{{ messages }}', contextLength: 2048, layers: 4 };

beforeAll(async () => {
  backend = new FakeBackend();
  backend.served = { ...FAKE_MODEL, facts: FACTS };
  srv = await startApiServer({ backend, port: 0 });
  keyed = await startApiServer({ backend, port: 0, apiKey: 'k3y' });
});

afterAll(async () => {
  await srv.close();
  await keyed.close();
});

afterEach(() => {
  backend.served = { ...FAKE_MODEL, facts: FACTS };
  backend.failAfter = null;
});

const url = (p: string, s = srv) => `http://127.0.0.1:${s.port}${p}`;
const post = (p: string, body: unknown, s = srv) => fetch(url(p, s), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const lines = (body: string): Record<string, unknown>[] =>
  body
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const chat = (extra: Record<string, unknown> = {}) => ({ model: 'fake', messages: [{ role: 'user', content: 'hi' }], options: { num_predict: 3 }, ...extra });

describe('Ollama API: models', () => {
  it('/api/tags lists the loaded model as name:latest with its details, and nothing while none is loaded', async () => {
    const r = await fetch(url('/api/tags'));
    expect(r.status).toBe(200);
    const body = (await r.json()) as { models: Record<string, unknown>[] };
    expect(body.models).toHaveLength(1);
    expect(body.models[0]).toMatchObject({
      name: 'fake:latest',
      model: 'fake:latest',
      size: 123456,
      modified_at: new Date(FAKE_MODEL.created * 1000).toISOString(),
      details: { format: 'gguf', family: 'llama', families: ['llama'], parameter_size: '1.2M', quantization_level: 'Q8_0' },
    });
    expect(body.models[0]?.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(((await (await fetch(url('/api/ps'))).json()) as { models: unknown[] }).models[0]).toMatchObject({ name: 'fake:latest', size_vram: 0 });
    backend.served = unavailable('no model is loaded', 'model_not_loaded');
    expect(await (await fetch(url('/api/tags'))).json()).toEqual({ models: [] });
  });

  it('/api/show answers for the bare name, name:latest, an alias, any other name; a model on disk but not loaded is 404 as {"error"}', async () => {
    for (const model of ['fake', 'fake:latest', 'fake.gguf', 'llama3']) {
      const r = await post('/api/show', { model });
      expect(r.status).toBe(200);
      expect(await r.json()).toMatchObject({ template: '{{ messages }}', details: { family: 'llama' }, model_info: { 'general.architecture': 'llama', 'llama.context_length': 2048 }, capabilities: ['completion', 'embedding'] });
    }
    backend.onDisk = { 'llama3:latest': '/models/llama3.gguf' };
    const missing = await post('/api/show', { name: 'llama3:latest' });
    backend.onDisk = {};
    expect(missing.status).toBe(404);
    const err = (await missing.json()) as { error: unknown };
    expect(typeof err.error).toBe('string');
    expect(err.error).toMatch(/model 'llama3:latest' is on this machine but not loaded: this server serves 'fake' \(GET \/api\/tags\)/);
  });

  it('/api/version answers without a key; the rest needs it, refused in Ollama\'s shape', async () => {
    const v = await fetch(url('/api/version', keyed));
    expect(v.status).toBe(200);
    expect(typeof ((await v.json()) as { version: unknown }).version).toBe('string');
    const t = await fetch(url('/api/tags', keyed));
    expect(t.status).toBe(401);
    expect(typeof ((await t.json()) as { error: unknown }).error).toBe('string');
    expect((await fetch(url('/api/tags', keyed), { headers: { authorization: 'Bearer k3y' } })).status).toBe(200);
  });

  it('unknown Ollama routes are 404 and wrong methods 405, as {"error"}', async () => {
    const r = await post('/api/push', { model: 'x' });
    expect(r.status).toBe(404);
    expect(typeof ((await r.json()) as { error: unknown }).error).toBe('string');
    expect((await fetch(url('/api/chat'))).status).toBe(405);
  });
});

describe('Ollama API: chat and generate', () => {
  it('chat streams NDJSON by default: a line per piece, then done with the reason and the counts', async () => {
    const r = await post('/api/chat', chat());
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/x-ndjson');
    const ls = lines(await r.text());
    expect(ls.slice(0, -1).map((l) => (l.message as { content: string }).content).join('')).toBe('w0 w1 w2 ');
    expect(ls.slice(0, -1).every((l) => l.done === false && l.model === 'fake')).toBe(true);
    expect(ls.at(-1)).toMatchObject({ model: 'fake', done: true, done_reason: 'length', message: { role: 'assistant', content: '' }, prompt_eval_count: 3, eval_count: 3, load_duration: 0 });
    expect(typeof ls.at(-1)?.total_duration).toBe('number');
    expect(backend.calls.at(-1)).toMatchObject({ messages: [{ role: 'user', content: 'hi' }], maxTokens: 3 });
  });

  it('chat with stream:false is one object holding the whole answer', async () => {
    const r = await post('/api/chat', chat({ stream: false, model: 'fake:latest' }));
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await r.json()).toMatchObject({ model: 'fake:latest', message: { role: 'assistant', content: 'w0 w1 w2 ' }, done: true, done_reason: 'length', eval_count: 3 });
  });

  it('options become the worker\'s sampling; a stop string ends the answer with done_reason stop', async () => {
    const r = await post('/api/generate', { model: 'fake', prompt: 'Once', stream: false, options: { num_predict: 8, temperature: 0, seed: 7, top_k: 3, stop: ['w2'] } });
    expect(await r.json()).toMatchObject({ response: 'w0 w1 ', done: true, done_reason: 'stop' });
    expect(backend.calls.at(-1)?.sampling).toEqual({ temperature: 0, seed: 7, topK: 3, topP: 0.9, minP: 0, repeatPenalty: 1.1, repeatLastN: 64 });
    // Defaults: Ollama's.
    await post('/api/generate', { model: 'fake', prompt: 'Once', stream: false, options: { num_predict: 1 } });
    expect(backend.calls.at(-1)?.sampling).toEqual({ temperature: 0.8, seed: RANDOM_SEED, topK: 40, topP: 0.9, minP: 0, repeatPenalty: 1.1, repeatLastN: 64 });
  });

  it('generate renders the prompt (and system) through the chat template; raw, or no template, sends the text as it is; chat without a template goes on (ChatML in the worker)', async () => {
    await post('/api/generate', { model: 'fake', prompt: 'Once', system: 'sys', options: { num_predict: 1 } });
    expect(backend.calls.at(-1)).toMatchObject({ messages: [{ role: 'system', content: 'sys' }, { role: 'user', content: 'Once' }] });
    await post('/api/generate', { model: 'fake', prompt: 'Once', raw: true, options: { num_predict: 1 } });
    expect(backend.calls.at(-1)).toMatchObject({ prompt: 'Once' });
    backend.served = { ...FAKE_MODEL, hasChatTemplate: false };
    const r = await post('/api/generate', { model: 'fake', prompt: 'Once', options: { num_predict: 2 } });
    const ls = lines(await r.text());
    expect(ls.map((l) => l.response).join('')).toBe('w0 w1 ');
    expect(backend.calls.at(-1)).toMatchObject({ prompt: 'Once' });
    // Chat turns go to the worker, which renders them with ChatML when the model has no template.
    const c = await post('/api/chat', chat());
    expect(c.status).toBe(200);
    expect(backend.calls.at(-1)).toMatchObject({ messages: [{ role: 'user', content: 'hi' }] });
  });

  it('num_ctx bounds the answer; more than a sequence holds is a 400', async () => {
    const r = await post('/api/chat', chat({ stream: false, options: { num_ctx: 2 } }));
    expect(await r.json()).toMatchObject({ eval_count: 2, done_reason: 'length' });
    const big = await post('/api/chat', chat({ options: { num_ctx: 4096 } }));
    expect(big.status).toBe(400);
    expect(((await big.json()) as { error: string }).error).toMatch(/num_ctx.*4096.*64 tokens/);
  });

  it('an empty chat or prompt only loads: done_reason "load", no generation', async () => {
    const before = backend.calls.length;
    expect(await (await post('/api/chat', { model: 'fake', stream: false })).json()).toMatchObject({ done: true, done_reason: 'load', message: { content: '' } });
    expect(lines(await (await post('/api/generate', { model: 'fake' })).text())).toEqual([expect.objectContaining({ done: true, done_reason: 'load', response: '' })]);
    expect(backend.calls.length).toBe(before);
  });

  it('a bad field is a 400 {"error"}, no model a 503; the worker failing mid-stream ends with an error line', async () => {
    const bad = await post('/api/chat', chat({ options: { temperature: 'x' } }));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/options\.temperature/);
    backend.served = unavailable('no model is loaded', 'model_not_loaded');
    expect((await post('/api/generate', { model: 'fake', prompt: 'x' })).status).toBe(503);
    backend.served = { ...FAKE_MODEL, facts: FACTS };
    backend.failAfter = { tokens: 0, error: crash() };
    expect((await post('/api/chat', chat())).status).toBe(500);
    backend.failAfter = { tokens: 2, error: crash() };
    const s = await post('/api/chat', chat({ options: { num_predict: 10 } }));
    expect(s.status).toBe(200);
    const ls = lines(await s.text());
    expect(ls.at(-1)).toEqual({ error: expect.stringMatching(/worker ended/) });
    expect(ls.some((l) => l.done === true)).toBe(false);
  });

  it('tools on /api/chat go to the worker with the turns; the calls the model writes come back as message.tool_calls, streamed and not', async () => {
    backend.served = { ...FAKE_MODEL, facts: { ...FACTS, chatTemplate: '{{ tools }} <tool_call> {{ messages }}' } };
    const words = backend.words;
    backend.words = ['Sure. ', '<tool_call>', '{"name": "get_weather", ', '"arguments": {"city": "Oslo"}}', '</tool_call>'];
    try {
      const tools = [{ type: 'function', function: { name: 'get_weather', description: 'forecast', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
      const messages = [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: '', tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Bergen' } } }] },
        { role: 'tool', content: 'rain', tool_name: 'get_weather' },
      ];
      const r = (await (await post('/api/chat', chat({ messages, tools, stream: false, options: { num_predict: 5 } }))).json()) as { message: { content: string; tool_calls?: unknown[] } };
      expect(r.message.tool_calls).toEqual([{ function: { name: 'get_weather', arguments: { city: 'Oslo' } } }]);
      expect(r.message.content.trim()).toBe('Sure.');
      const sent = backend.calls.at(-1);
      expect(sent?.tools?.map((t) => t.name)).toEqual(['get_weather']);
      expect(sent?.messages?.[1]).toMatchObject({ role: 'assistant', toolCalls: [{ name: 'get_weather', arguments: '{"city":"Bergen"}' }] });
      expect(sent?.messages?.[2]).toMatchObject({ role: 'tool', content: 'rain' });
      const streamed = lines(await (await post('/api/chat', chat({ messages, tools, options: { num_predict: 5 } }))).text());
      const withCalls = streamed.filter((l) => (l.message as { tool_calls?: unknown } | undefined)?.tool_calls);
      expect(withCalls.map((l) => (l.message as { tool_calls: unknown }).tool_calls)).toEqual([[{ function: { name: 'get_weather', arguments: { city: 'Oslo' } } }]]);
      expect(streamed.at(-1)).toMatchObject({ done: true });
      backend.served = { ...FAKE_MODEL, facts: FACTS };
      const refused = await post('/api/chat', chat({ tools }));
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toMatch(/does not render tools/);
    } finally {
      backend.words = words;
    }
  });
});
