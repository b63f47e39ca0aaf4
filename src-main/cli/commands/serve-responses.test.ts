// OpenAI's Responses API on a real `ramforge serve --api` (the built CLI, a real worker, a
// synthetic qwen2 model with the Hermes/Qwen2.5 tool template), through the official openai
// client's `responses.create` and `responses.stream` (which rebuilds the answer from the events
// and throws on an event out of order): the same text as the chat route for the same turns,
// streamed and not; a forced function call as a function_call item whose arguments validate,
// and a round trip with its output; malformed values are 400s in OpenAI's shape.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { serveApi, stopServed, synthModel, type Served } from './serve-api.test-util.js';

let dir = '';
let server: Served;
let client: OpenAI;

const CITY = { type: 'object', properties: { city: { enum: ['Oslo', 'Bergen'] } }, required: ['city'], additionalProperties: false };
const weather: OpenAI.Responses.FunctionTool = { type: 'function', name: 'get_weather', description: 'The forecast', parameters: CITY, strict: true };

const post = (path: string, body: unknown) => fetch(`http://127.0.0.1:${server.port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-serve-responses-'));
  server = await serveApi(dir, ['--parallel', '1', '--ctx', '2048', synthModel(dir, 'tools.gguf', ['--arch', 'qwen2', '--seed', '21', '--tool-template'])]);
  client = new OpenAI({ baseURL: server.url, apiKey: 'none', maxRetries: 0, timeout: 120_000 });
}, 180_000);

afterAll(async () => {
  await stopServed(server);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('POST /v1/responses', () => {
  it('answers the turns the chat route answers, with instructions as the system turn, at once and as its event stream', async () => {
    const chat = await client.chat.completions.create({ model: 'x', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello!' }], max_tokens: 6, temperature: 0 });
    const want = chat.choices[0]?.message.content ?? '';
    expect(want.length).toBeGreaterThan(0);

    const r = await client.responses.create({ model: 'gpt-4.1-mini', instructions: 'Be brief.', input: 'Hello!', max_output_tokens: 6, temperature: 0 });
    expect(r.object).toBe('response');
    expect(r.model).toBe('tools');
    expect(r.output_text).toBe(want);
    expect(r.status).toBe('incomplete');
    expect(r.incomplete_details?.reason).toBe('max_output_tokens');
    expect(r.usage).toMatchObject({ input_tokens: chat.usage?.prompt_tokens, output_tokens: 6, total_tokens: (chat.usage?.prompt_tokens ?? 0) + 6 });

    // Message items as input give the same turns.
    const items = await client.responses.create({ input: [{ role: 'developer', content: 'Be brief.' }, { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello!' }] }], max_output_tokens: 6, temperature: 0 });
    expect(items.output_text).toBe(want);

    const stream = client.responses.stream({ instructions: 'Be brief.', input: 'Hello!', max_output_tokens: 6, temperature: 0 });
    const types: string[] = [];
    let deltas = '';
    for await (const e of stream) {
      types.push(e.type);
      if (e.type === 'response.output_text.delta') deltas += e.delta;
    }
    const final = await stream.finalResponse();
    expect(deltas).toBe(want);
    expect(final.output_text).toBe(want);
    expect(types.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    expect(types.slice(-4)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.incomplete']);
  });

  it('a forced function tool comes back as a function_call item (streamed too), and its output sent back is answered', async () => {
    const r = await client.responses.create({ input: 'Weather in Oslo?', tools: [weather], tool_choice: 'required', temperature: 0 });
    const call = r.output.find((o) => o.type === 'function_call');
    expect(call, JSON.stringify(r.output)).toBeDefined();
    if (call?.type !== 'function_call') throw new Error('no call');
    expect(call.name).toBe('get_weather');
    expect(['Oslo', 'Bergen']).toContain((JSON.parse(call.arguments) as { city: string }).city);
    expect(call.call_id).toMatch(/^call_/);

    const stream = client.responses.stream({ input: 'Weather in Oslo?', tools: [weather], tool_choice: { type: 'function', name: 'get_weather' }, temperature: 0 });
    const argDeltas: string[] = [];
    stream.on('response.function_call_arguments.delta', (e) => argDeltas.push(e.delta));
    const final = await stream.finalResponse();
    const streamed = final.output.find((o) => o.type === 'function_call');
    if (streamed?.type !== 'function_call') throw new Error(`no streamed call: ${JSON.stringify(final.output)}`);
    expect(argDeltas.join('')).toBe(streamed.arguments);
    expect(streamed.arguments).toBe(call.arguments);

    const back = await client.responses.create({
      input: [{ role: 'user', content: 'Weather in Oslo?' }, { type: 'function_call', call_id: call.call_id, name: call.name, arguments: call.arguments }, { type: 'function_call_output', call_id: call.call_id, output: '{"sky":"clear"}' }],
      tools: [weather],
      max_output_tokens: 4,
      temperature: 0,
    });
    expect(back.usage?.input_tokens).toBeGreaterThan(r.usage?.input_tokens ?? 0);
    expect(back.usage?.output_tokens).toBeGreaterThan(0);
  });

  it("POST /v1/responses/input_tokens (the client's responses.inputTokens.count): the input tokens a response to the same body is given", async () => {
    const body = { instructions: 'Be brief.', input: 'Weather in Oslo?', tools: [weather], tool_choice: { type: 'function' as const, name: 'get_weather' } };
    const counted = await client.responses.inputTokens.count({ model: 'gpt-5', ...body });
    expect(counted.object).toBe('response.input_tokens');
    const ran = await client.responses.create({ ...body, max_output_tokens: 1 });
    expect(counted.input_tokens).toBe(ran.usage?.input_tokens);
    const plain = await client.responses.inputTokens.count({ input: 'Weather in Oslo?' });
    expect(plain.input_tokens).toBeGreaterThan(0);
    expect(plain.input_tokens).toBeLessThan(counted.input_tokens);
    const bad = await post('/v1/responses/input_tokens', { input: 42 });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { param: 'input', code: 'invalid_type' } });
  });

  it('malformed values are 400s in OpenAI error shape, server-kept state is refused, unknown fields are named back', async () => {
    const wrongType = await post('/v1/responses', { input: 'hi', max_output_tokens: 'many' });
    expect(wrongType.status).toBe(400);
    expect(await wrongType.json()).toMatchObject({ error: { type: 'invalid_request_error', param: 'max_output_tokens', code: 'invalid_type' } });
    const noInput = await post('/v1/responses', { instructions: 'x' });
    expect(await noInput.json()).toMatchObject({ error: { param: 'input', code: 'missing_required_parameter' } });
    const builtIn = await post('/v1/responses', { input: 'hi', tools: [{ type: 'web_search' }] });
    expect(await builtIn.json()).toMatchObject({ error: { param: 'tools[0].type', code: 'invalid_value' } });
    const previous = await client.responses.create({ input: 'hi', previous_response_id: 'resp_1' }).catch((e: unknown) => e);
    expect(previous).toBeInstanceOf(OpenAI.BadRequestError);
    expect((previous as Error).message).toMatch(/keeps no responses/);
    const extra = await post('/v1/responses', { input: 'hi', max_output_tokens: 1, cache_prompt: true });
    expect(extra.status).toBe(200);
    expect(extra.headers.get('x-ramforge-ignored')).toBe('cache_prompt');
  });
});
