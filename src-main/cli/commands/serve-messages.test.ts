// Anthropic's Messages API on a real `ramforge serve --api` (the built CLI, a real worker, a
// synthetic qwen2 model with the Hermes/Qwen2.5 tool template), asked as Anthropic's clients
// ask (x-api-key and anthropic-version headers, named server-sent events): the same text as the
// chat route for the same turns, streamed and not; stop_sequences; a forced tool as a tool_use
// block whose input validates, and a round trip with its tool_result; errors in Anthropic's shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveApi, stopServed, synthModel, type Served } from './serve-api.test-util.js';

let dir = '';
let server: Served;
const KEY = 's3cret';
const HEADERS = { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' };
const CITY = { type: 'object', properties: { city: { enum: ['Oslo', 'Bergen'] } }, required: ['city'], additionalProperties: false };
const weather = { name: 'get_weather', description: 'The forecast', input_schema: CITY };

const post = (path: string, body: unknown, headers: Record<string, string> = HEADERS) =>
  fetch(`http://127.0.0.1:${server.port}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });

/** A stream's events as Anthropic's clients read them: the `event:` name and its JSON. */
async function events(r: Response): Promise<{ event: string; data: Record<string, unknown> }[]> {
  expect(r.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return (await r.text())
    .split('\n\n')
    .filter((e) => e.trim() !== '')
    .map((e) => {
      const name = /^event: (.+)$/m.exec(e)?.[1] ?? '';
      const data = JSON.parse(/^data: (.+)$/m.exec(e)?.[1] ?? 'null') as Record<string, unknown>;
      expect(data.type).toBe(name);
      return { event: name, data };
    });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-serve-messages-'));
  server = await serveApi(dir, ['--parallel', '1', '--ctx', '2048', '--api-key', KEY, synthModel(dir, 'tools.gguf', ['--arch', 'qwen2', '--seed', '21', '--tool-template'])]);
}, 180_000);

afterAll(async () => {
  await stopServed(server);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('POST /v1/messages', () => {
  it('answers the turns the chat route answers, system and content blocks included, at once and as its event stream', async () => {
    const chat = await post('/v1/chat/completions', { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello!' }], max_tokens: 6, temperature: 0 }, { ...HEADERS, authorization: `Bearer ${KEY}` });
    const c = (await chat.json()) as { choices: { message: { content: string } }[]; usage: { prompt_tokens: number } };
    const want = c.choices[0]?.message.content ?? '';
    expect(want.length).toBeGreaterThan(0);

    const ask = { model: 'claude-sonnet-4-5', system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }], messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello!' }] }], max_tokens: 6, temperature: 0 };
    const r = await post('/v1/messages', ask);
    expect(r.status).toBe(200);
    const m = (await r.json()) as Record<string, unknown>;
    expect(m).toMatchObject({ type: 'message', role: 'assistant', model: 'tools', content: [{ type: 'text', text: want }], stop_reason: 'max_tokens', stop_sequence: null, usage: { input_tokens: c.usage.prompt_tokens, output_tokens: 6 } });
    expect(m.id).toMatch(/^msg_/);

    const s = await events(await post('/v1/messages', { ...ask, stream: true }));
    const names = s.map((e) => e.event);
    expect(names.slice(0, 3)).toEqual(['message_start', 'ping', 'content_block_start']);
    expect(names.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    const text = s.filter((e) => e.event === 'content_block_delta').map((e) => (e.data.delta as { type: string; text: string }).text);
    expect(text.join('')).toBe(want);
    expect(s.find((e) => e.event === 'message_delta')?.data).toMatchObject({ delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: 6 } });
  });

  it("message_start's usage has the prompt's token count (as Anthropic sends it), the count the chat route reports", async () => {
    const turns = { system: 'Be brief.', messages: [{ role: 'user', content: 'Hello!' }], max_tokens: 2, temperature: 0 };
    const chat = await post('/v1/chat/completions', { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello!' }], max_tokens: 1 });
    const prompt = ((await chat.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens;
    expect(prompt).toBeGreaterThan(0);
    const s = await events(await post('/v1/messages', { ...turns, stream: true }));
    expect(s[0]?.data).toMatchObject({ type: 'message_start', message: { usage: { input_tokens: prompt, output_tokens: 0 } } });
  });

  it('stop_sequences end the text before the sequence, and name it', async () => {
    const free = (await (await post('/v1/messages', { messages: [{ role: 'user', content: 'Hello!' }], max_tokens: 12, temperature: 0 })).json()) as { content: { text: string }[] };
    const whole = free.content[0]?.text ?? '';
    const stopAt = whole.slice(3, 5);
    expect(stopAt.length).toBe(2);
    const r = (await (await post('/v1/messages', { messages: [{ role: 'user', content: 'Hello!' }], max_tokens: 12, temperature: 0, stop_sequences: [stopAt] })).json()) as Record<string, unknown>;
    expect(r).toMatchObject({ content: [{ type: 'text', text: whole.slice(0, whole.indexOf(stopAt)) }], stop_reason: 'stop_sequence', stop_sequence: stopAt });
  });

  it('a forced tool comes back as a tool_use block (streamed as input_json_delta), and its tool_result sent back is answered', async () => {
    const r = (await (await post('/v1/messages', { messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools: [weather], tool_choice: { type: 'any' }, max_tokens: 200, temperature: 0 })).json()) as {
      content: { type: string; id: string; name: string; input: { city: string } }[];
      stop_reason: string;
      usage: { input_tokens: number };
    };
    const use = r.content.find((b) => b.type === 'tool_use');
    expect(use, JSON.stringify(r)).toBeDefined();
    expect(r.stop_reason).toBe('tool_use');
    expect(use?.name).toBe('get_weather');
    expect(['Oslo', 'Bergen']).toContain(use?.input.city);

    const s = await events(await post('/v1/messages', { messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools: [weather], tool_choice: { type: 'tool', name: 'get_weather' }, max_tokens: 200, temperature: 0, stream: true }));
    const start = s.find((e) => e.event === 'content_block_start' && (e.data.content_block as { type: string }).type === 'tool_use');
    expect(start?.data.content_block).toMatchObject({ type: 'tool_use', name: 'get_weather', input: {} });
    const json = s.filter((e) => (e.data.delta as { type?: string } | undefined)?.type === 'input_json_delta').map((e) => (e.data.delta as { partial_json: string }).partial_json);
    expect(JSON.parse(json.join(''))).toEqual(use?.input);
    expect(s.find((e) => e.event === 'message_delta')?.data.delta).toMatchObject({ stop_reason: 'tool_use' });

    const back = await post('/v1/messages', {
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        { role: 'assistant', content: [use] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use?.id, content: [{ type: 'text', text: 'clear' }] }] },
      ],
      tools: [weather],
      max_tokens: 3,
      temperature: 0,
    });
    expect(back.status).toBe(200);
    expect(((await back.json()) as { usage: { input_tokens: number } }).usage.input_tokens).toBeGreaterThan(r.usage.input_tokens);
  });

  it('POST /v1/messages/count_tokens: {"input_tokens"} alone, what a generation of the same body is given (tools and system included); no max_tokens needed', async () => {
    const body = { model: 'claude-x', system: 'Be brief.', messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools: [weather] };
    const count = await post('/v1/messages/count_tokens', body);
    expect(count.status).toBe(200);
    const counted = (await count.json()) as Record<string, unknown>;
    expect(Object.keys(counted)).toEqual(['input_tokens']);
    const ran = (await (await post('/v1/messages', { ...body, max_tokens: 1 })).json()) as { usage: { input_tokens: number } };
    expect(counted.input_tokens).toBe(ran.usage.input_tokens);
    const plain = (await (await post('/v1/messages/count_tokens', { messages: [{ role: 'user', content: 'Weather in Oslo?' }] })).json()) as { input_tokens: number };
    expect(plain.input_tokens).toBeLessThan(ran.usage.input_tokens);
    const bad = await post('/v1/messages/count_tokens', { messages: 'hi' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });

  it("an empty messages list is answered from the template's opening of the assistant's turn, as llama-server answers it; OpenAI's chat still refuses it", async () => {
    const r = await post('/v1/messages', { model: 'test', max_tokens: 5, temperature: 0, messages: [] });
    expect(r.status).toBe(200);
    const m = (await r.json()) as { type: string; content: { type: string }[]; usage: { input_tokens: number; output_tokens: number } };
    expect(m.type).toBe('message');
    expect(m.usage.output_tokens).toBeGreaterThan(0);
    const counted = (await (await post('/v1/messages/count_tokens', { messages: [] })).json()) as { input_tokens: number };
    const one = (await (await post('/v1/messages/count_tokens', { messages: [{ role: 'user', content: 'hi' }] })).json()) as { input_tokens: number };
    expect(m.usage.input_tokens).toBe(counted.input_tokens);
    expect(counted.input_tokens).toBeGreaterThan(0);
    expect(counted.input_tokens).toBeLessThan(one.input_tokens);
    const chat = await post('/v1/chat/completions', { messages: [], max_tokens: 1 }, { ...HEADERS, authorization: `Bearer ${KEY}` });
    expect(chat.status).toBe(400);
  });

  it("errors are in Anthropic's shape: no key 401, a wrong type 400, an image 400", async () => {
    const { 'x-api-key': _key, ...noKey } = HEADERS;
    const denied = await post('/v1/messages', { messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 }, noKey);
    expect(denied.status).toBe(401);
    expect(await denied.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const wrong = await post('/v1/messages', { messages: [{ role: 'user', content: 'hi' }], max_tokens: 'ten' });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringMatching(/'max_tokens' must be an integer/) } });
    const image = await post('/v1/messages', { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: '' } }] }], max_tokens: 1 });
    expect(image.status).toBe(400);
    expect(await image.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringMatching(/"image" is not supported/) } });
  });
});
