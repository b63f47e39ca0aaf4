// Tool calling on a real `ramforge serve --api` (the built CLI, a real worker, a synthetic qwen2
// model with random weights and the Hermes/Qwen2.5-style tool template from `synth
// --tool-template`), through the official openai client: a forced call (tool_choice naming the
// function, or required) parses into tool_calls whose arguments validate against the tool's
// schema, streamed and not; a round trip (the call and its result sent back) answers; plain
// chats on that model render as llama.cpp's own ChatML; a model whose template has no tool
// support answers 400 saying why; malformed tool fields are 400s and the server serves on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import OpenAI from 'openai';
import { Ollama, type Tool } from 'ollama';
import { serveApi, stopServed, synthModel, type Served } from './serve-api.test-util.js';

let dir = '';
let tooled: Served;
let plain: Served;

/** Every field bounded: the forced call's grammar admits finitely many texts, so it ends. */
const WEATHER_PARAMS = {
  type: 'object',
  properties: {
    city: { type: 'string', enum: ['Oslo', 'Bergen', 'Tromsø'] },
    days: { type: 'integer', minimum: 1, maximum: 7 },
    unit: { enum: ['celsius', 'fahrenheit'] },
  },
  required: ['city', 'days', 'unit'],
  additionalProperties: false,
};
const ADD_PARAMS = { type: 'object', properties: { a: { type: 'integer', minimum: 0, maximum: 99 }, b: { type: 'boolean' } }, required: ['a', 'b'], additionalProperties: false };
const tools: OpenAI.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'get_weather', description: 'The forecast for a city', parameters: WEATHER_PARAMS } },
  { type: 'function', function: { name: 'add', description: 'Adds one', parameters: ADD_PARAMS } },
];
const ajv = new Ajv({ strict: false });
const validators: Record<string, ReturnType<Ajv['compile']>> = { get_weather: ajv.compile(WEATHER_PARAMS), add: ajv.compile(ADD_PARAMS) };
const ask: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather in Oslo for 3 days?' }];

const openai = (s: Served) => new OpenAI({ baseURL: s.url, apiKey: 'none', maxRetries: 0, timeout: 120_000 });

function expectValidCall(name: string | undefined, args: string | undefined, want?: string): void {
  expect(name && validators[name], `name ${name}`).toBeTruthy();
  if (want) expect(name).toBe(want);
  const value: unknown = JSON.parse(args ?? '');
  const v = validators[name as string] as ReturnType<Ajv['compile']>;
  expect(v(value), `${args}: ${JSON.stringify(v.errors)}`).toBe(true);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-serve-tools-'));
  const withTools = synthModel(dir, 'tools.gguf', ['--arch', 'qwen2', '--seed', '21', '--tool-template']);
  const without = synthModel(dir, 'plain.gguf', ['--arch', 'qwen2', '--seed', '21']);
  [tooled, plain] = await Promise.all([serveApi(dir, ['--parallel', '1', '--ctx', '2048', withTools]), serveApi(dir, ['--parallel', '1', '--ctx', '2048', without])]);
}, 180_000);

afterAll(async () => {
  await Promise.all([stopServed(tooled), stopServed(plain)]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('tool calling on a synthetic model with a tool template', () => {
  it('a forced call (tool_choice naming the function) parses into tool_calls whose arguments validate, for several seeds', async () => {
    for (const seed of [1, 2, 3]) {
      const r = await openai(tooled).chat.completions.create({ model: 'tools', messages: ask, tools, tool_choice: { type: 'function', function: { name: 'get_weather' } }, max_tokens: 200, temperature: 1, seed });
      const choice = r.choices[0];
      expect(choice?.finish_reason, JSON.stringify(choice)).toBe('tool_calls');
      expect(choice?.message.content).toBeNull();
      const calls = choice?.message.tool_calls ?? [];
      expect(calls).toHaveLength(1);
      const call = calls[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
      expect(call.type).toBe('function');
      expect(call.id).toMatch(/^call_[0-9a-f]{24}$/);
      expectValidCall(call.function.name, call.function.arguments, 'get_weather');
    }
  });

  it('streamed, a forced call (required, two tools) arrives as tool_calls deltas: id, type and name, then the arguments, then finish tool_calls', async () => {
    for (const seed of [4, 5]) {
      const stream = await openai(tooled).chat.completions.create({ model: 'tools', messages: ask, tools, tool_choice: 'required', max_tokens: 200, temperature: 1, seed, stream: true });
      let content = '';
      let finish: string | null = null;
      const calls: { id?: string; type?: string; name?: string; args: string }[] = [];
      const firsts: boolean[] = [];
      for await (const chunk of stream) {
        const c = chunk.choices[0];
        content += c?.delta.content ?? '';
        finish = c?.finish_reason ?? finish;
        for (const d of c?.delta.tool_calls ?? []) {
          const slot = (calls[d.index] ??= { args: '' });
          firsts.push(d.id !== undefined);
          if (d.id) slot.id = d.id;
          if (d.type) slot.type = d.type;
          if (d.function?.name) slot.name = d.function.name;
          slot.args += d.function?.arguments ?? '';
        }
      }
      expect(finish).toBe('tool_calls');
      expect(content).toBe('');
      expect(firsts).toEqual([true, false]);
      expect(calls).toHaveLength(1);
      expect(calls[0]?.type).toBe('function');
      expect(calls[0]?.id).toMatch(/^call_/);
      expectValidCall(calls[0]?.name, calls[0]?.args);
    }
  });

  it('a round trip: the call and its result sent back answer 200 with an assistant message', async () => {
    const first = await openai(tooled).chat.completions.create({ model: 'tools', messages: ask, tools, tool_choice: { type: 'function', function: { name: 'get_weather' } }, max_tokens: 200, seed: 7 });
    const message = first.choices[0]?.message as OpenAI.ChatCompletionMessage;
    const call = message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call).toBeDefined();
    const messages: OpenAI.ChatCompletionMessageParam[] = [...ask, { role: 'assistant', content: message.content, tool_calls: message.tool_calls }, { role: 'tool', tool_call_id: call.id, content: '{"forecast": "sunny", "high": 21}' }];
    for (const tool_choice of ['auto', 'none'] as const) {
      const r = await openai(tooled).chat.completions.create({ model: 'tools', messages, tools, tool_choice, max_tokens: 8, temperature: 0 });
      expect(r.choices[0]?.message.role).toBe('assistant');
      // auto renders the tools and the turns (more than the first request's prompt); none renders the turns only.
      if (tool_choice === 'auto') expect(r.usage?.prompt_tokens).toBeGreaterThan(first.usage?.prompt_tokens ?? 0);
      else expect(r.usage?.prompt_tokens).toBeLessThan(first.usage?.prompt_tokens ?? 0);
    }
    // Without tools at all, the tool turns still render through the template.
    const bare = await openai(tooled).chat.completions.create({ model: 'tools', messages, max_tokens: 4, temperature: 0 });
    expect(bare.choices[0]?.finish_reason).not.toBe('tool_calls');
  });

  it("Ollama's /api/chat with tools (the ollama client): the tools and a round trip of tool turns are rendered by the same template; a model without tool support is a 400", async () => {
    const ollama = (s: Served) => new Ollama({ host: `http://127.0.0.1:${s.port}` });
    // The same declarations in the ollama client's type (Ollama declares tools as OpenAI does).
    const otools = tools as unknown as Tool[];
    const content = ask[0]?.content as string;
    const bare = await ollama(tooled).chat({ model: 'tools', messages: [{ role: 'user', content }], options: { num_predict: 2, temperature: 0 } });
    const withTools = await ollama(tooled).chat({ model: 'tools', messages: [{ role: 'user', content }], tools: otools, options: { num_predict: 2, temperature: 0 } });
    // The same prompt as the OpenAI route renders for the same tools and turn.
    const openaiSame = await openai(tooled).chat.completions.create({ model: 'tools', messages: ask, tools, max_tokens: 2, temperature: 0 });
    expect(withTools.prompt_eval_count).toBeGreaterThan(bare.prompt_eval_count);
    expect(withTools.prompt_eval_count).toBe(openaiSame.usage?.prompt_tokens);
    const turns = await ollama(tooled).chat({
      model: 'tools',
      messages: [{ role: 'user', content }, { role: 'assistant', content: '', tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Oslo', days: 3, unit: 'celsius' } } }] }, { role: 'tool', content: '{"forecast": "sunny"}', tool_name: 'get_weather' }],
      tools: otools,
      options: { num_predict: 2, temperature: 0 },
    });
    expect(turns.message.role).toBe('assistant');
    expect(turns.prompt_eval_count).toBeGreaterThan(withTools.prompt_eval_count);
    const refused = await ollama(plain).chat({ model: 'plain', messages: [{ role: 'user', content }], tools: otools }).catch((x: unknown) => x);
    expect((refused as { status_code: number }).status_code).toBe(400);
    expect((refused as Error).message).toMatch(/does not render tools/);
  });

  it("plain chats on the tool model render as llama.cpp's ChatML does (the same prompt tokens as a ChatML model's)", async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello there' }];
    const [a, b] = await Promise.all([tooled, plain].map((s, i) => openai(s).chat.completions.create({ model: i === 0 ? 'tools' : 'plain', messages, max_tokens: 2, temperature: 0 })));
    expect(a?.usage?.prompt_tokens).toBe(b?.usage?.prompt_tokens);
    expect(a?.usage?.prompt_tokens).toBeGreaterThan(0);
  });

  it('a model whose template has no tool support answers 400 naming why, for tools and for tool turns; tool_choice none is served', async () => {
    const e = await openai(plain).chat.completions.create({ model: 'plain', messages: ask, tools, max_tokens: 4 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OpenAI.BadRequestError);
    expect(e).toMatchObject({ param: 'tools', code: 'tools_unsupported' });
    expect((e as Error).message).toMatch(/does not render tools.*<tool_call>/);
    const turn = await openai(plain)
      .chat.completions.create({ model: 'plain', messages: [...ask, { role: 'tool', tool_call_id: 'call_1', content: 'sunny' }], max_tokens: 4 })
      .catch((x: unknown) => x);
    expect(turn).toMatchObject({ status: 400, param: 'messages', code: 'tools_unsupported' });
    const none = await openai(plain).chat.completions.create({ model: 'plain', messages: ask, tools, tool_choice: 'none', max_tokens: 2 });
    expect(none.choices[0]?.message.tool_calls).toBeUndefined();
  });

  it('malformed tools and tool_choice are 400s naming the field; the server serves on', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ tools: [{ type: 'function', function: { name: 'has space' } }] }, 'tools[0].function.name'],
      [{ tools: [{ type: 'function' }] }, 'tools[0].function'],
      [{ tools, tool_choice: { type: 'function', function: { name: 'nope' } } }, 'tool_choice.function.name'],
      [{ tools, tool_choice: 'sometimes' }, 'tool_choice'],
      [{ tool_choice: 'required' }, 'tool_choice'],
      [{ tools, parallel_tool_calls: 'no' }, 'parallel_tool_calls'],
      [{ tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'string', pattern: 'a+' } } }], tool_choice: 'required' }, 'tool_choice'],
    ];
    for (const [extra, param] of bad) {
      const e = await openai(tooled)
        .chat.completions.create({ model: 'tools', messages: ask, max_tokens: 2, ...extra } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming)
        .catch((x: unknown) => x);
      expect(e, JSON.stringify(extra)).toBeInstanceOf(OpenAI.BadRequestError);
      expect(e).toMatchObject({ param });
    }
    const after = await openai(tooled).chat.completions.create({ model: 'tools', messages: ask, max_tokens: 2 });
    expect(after.choices[0]?.message.role).toBe('assistant');
    expect(tooled.child.exitCode).toBeNull();
  });
});
