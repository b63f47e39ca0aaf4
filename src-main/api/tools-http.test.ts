// Tool calling through the HTTP server in this process (a fake backend whose "model" writes a
// fixed text): tool_choice auto parses a <tool_call> block out of free text into tool_calls,
// streamed (the content before it as deltas, a partial tag held back, then the call's deltas)
// and not; what reaches the worker (tools rendered or not); none parses nothing; a model whose
// template has no tool support is 400.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type RunningApiServer } from './http-server.js';
import { FAKE_MODEL, FakeBackend } from './fake-backend.test-util.js';

const TOOL_MODEL = { ...FAKE_MODEL, facts: { sizeBytes: 1, parameterCount: 1, fileType: null, chatTemplate: '{{ "<tool_call>" }}', contextLength: 64, layers: 1 } };
const WORDS = ['Let', ' me <tool', '_call>\n{"name": "add", ', '"arguments": {"a": 1}}\n</tool', '_call>'];

let backend: FakeBackend;
let srv: RunningApiServer;

beforeAll(async () => {
  backend = new FakeBackend();
  srv = await startApiServer({ backend, port: 0 });
});
afterAll(async () => srv.close());
afterEach(() => {
  backend.served = FAKE_MODEL;
  backend.calls = [];
});

const tools = [{ type: 'function', function: { name: 'add', parameters: { type: 'object', properties: { a: { type: 'integer' } } } } }];
const post = (body: unknown) => fetch(`http://127.0.0.1:${srv.port}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const chat = (extra: Record<string, unknown>) => ({ model: 'fake', messages: [{ role: 'user', content: 'add one' }], max_tokens: WORDS.length, tools, ...extra });

interface Delta {
  content?: string;
  tool_calls?: { index: number; id?: string; type?: string; function: { name?: string; arguments: string } }[];
}

describe('tool calls through the HTTP server', () => {
  it('auto: a block in free text becomes tool_calls, the text before it the content; the tools reach the worker', async () => {
    backend.served = TOOL_MODEL;
    backend.words = WORDS;
    const r = await post(chat({}));
    expect(r.status).toBe(200);
    const body = (await r.json()) as { choices: { message: { content: string | null; tool_calls?: unknown[] }; finish_reason: string }[] };
    expect(body.choices[0]?.finish_reason).toBe('tool_calls');
    expect(body.choices[0]?.message.content).toBe('Let me');
    expect(body.choices[0]?.message.tool_calls).toEqual([{ id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'add', arguments: '{"a":1}' } }]);
    expect(backend.calls[0]?.tools).toEqual([{ name: 'add', parameters: tools[0]?.function.parameters }]);
    expect(backend.calls[0]?.sampling.grammar).toBeUndefined();
  });

  it('streamed: content deltas stop before the tag (a partial tag never leaks), then the call as id/name and arguments deltas', async () => {
    backend.served = TOOL_MODEL;
    backend.words = WORDS;
    const r = await post(chat({ stream: true }));
    const events = (await r.text())
      .split('\n\n')
      .filter((e) => e.startsWith('data: '))
      .map((e) => e.slice(6));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as { choices: { delta: Delta; finish_reason: string | null }[] });
    const deltas = chunks.map((c) => c.choices[0]?.delta as Delta);
    expect(deltas.map((d) => d.content ?? '').join('')).toBe('Let me ');
    expect(deltas.some((d) => d.content?.includes('<'))).toBe(false);
    const calls = deltas.flatMap((d) => d.tool_calls ?? []);
    expect(calls).toEqual([
      { index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'add', arguments: '' } },
      { index: 0, function: { arguments: '{"a":1}' } },
    ]);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('none: no tools reach the worker and the block stays text; a model without tool support is 400 tools_unsupported', async () => {
    backend.served = TOOL_MODEL;
    backend.words = WORDS;
    const r = await post(chat({ tool_choice: 'none' }));
    const body = (await r.json()) as { choices: { message: { content: string; tool_calls?: unknown }; finish_reason: string }[] };
    expect(body.choices[0]?.message.content).toBe(WORDS.join(''));
    expect(body.choices[0]?.message.tool_calls).toBeUndefined();
    expect(backend.calls[0]?.tools).toBeUndefined();
    backend.served = FAKE_MODEL;
    const e = await post(chat({}));
    expect(e.status).toBe(400);
    expect(((await e.json()) as { error: { code: string; param: string } }).error).toMatchObject({ code: 'tools_unsupported', param: 'tools' });
  });
});
