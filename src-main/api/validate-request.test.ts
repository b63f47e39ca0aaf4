import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.js';
import { JSON_OBJECT_GBNF, jsonSchemaToGbnf } from './json-schema-grammar.js';
import { validateChatRequest, validateCompletionRequest } from './validate-request.js';
import { RANDOM_SEED } from './generation-defaults.js';

const chat = (extra: Record<string, unknown> = {}) => ({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra });
const text = (extra: Record<string, unknown> = {}) => ({ model: 'm', prompt: 'Once', ...extra });

function refusal(f: () => unknown): ApiError {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('validateChatRequest', () => {
  it('turns a minimal request into OpenAI defaults in the worker\'s terms', () => {
    const r = validateChatRequest(chat());
    expect(r).toMatchObject({ kind: 'chat', model: 'm', messages: [{ role: 'user', content: 'hi' }], maxTokens: null, stop: [], stream: false, includeUsage: false, echo: false });
    expect(r.sampling).toEqual({ temperature: 1, topP: 1, topK: 0, minP: 0, repeatPenalty: 1, repeatLastN: 64, seed: RANDOM_SEED });
  });

  it('honours max_tokens, max_completion_tokens first, temperature, top_p, seed, stop, stream options and llama.cpp samplers', () => {
    const r = validateChatRequest(
      chat({ max_tokens: 9, max_completion_tokens: 7, temperature: 0, top_p: 0.5, seed: 42, stop: 'END', stream: true, stream_options: { include_usage: true }, top_k: 40, min_p: 0.05, repeat_penalty: 1.1 }),
    );
    expect(r.maxTokens).toBe(7);
    expect(r.sampling).toMatchObject({ temperature: 0, topP: 0.5, seed: 42, topK: 40, minP: 0.05, repeatPenalty: 1.1 });
    expect(r.stop).toEqual(['END']);
    expect(r).toMatchObject({ stream: true, includeUsage: true });
    expect(validateChatRequest(chat({ max_tokens: 5 })).maxTokens).toBe(5);
    expect(validateChatRequest(chat({ seed: -1 })).sampling.seed).toBe(RANDOM_SEED);
  });

  it('null means not given, as in OpenAI\'s API', () => {
    const r = validateChatRequest(chat({ max_tokens: null, temperature: null, stop: null, n: null, stream: null, stream_options: null, user: null, logit_bias: null }));
    expect(r.maxTokens).toBeNull();
    expect(r.sampling.temperature).toBe(1);
  });

  it('reads text parts, maps developer to system, and accepts parameters that do not change the text', () => {
    const r = validateChatRequest(
      chat({
        messages: [
          { role: 'developer', content: 'be brief' },
          { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }], name: 'x' },
          { role: 'assistant', content: 'ok', refusal: null, tool_calls: [] },
        ],
        frequency_penalty: 0.5,
        presence_penalty: -1,
        user: 'u',
        n: 1,
        logprobs: false,
        tools: [],
        tool_choice: 'none',
        response_format: { type: 'text' },
        store: false,
        metadata: { a: 'b' },
        parallel_tool_calls: true,
      }),
    );
    expect(r.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'a\nb' },
      { role: 'assistant', content: 'ok' },
    ]);
  });

  it.each([
    [{ model: 'm' }, 'messages', 'missing_required_parameter'],
    [chat({ model: 3 }), 'model', 'invalid_type'],
    [chat({ messages: 'hi' }), 'messages', 'invalid_type'],
    [chat({ messages: [] }), 'messages', 'invalid_value'],
    [chat({ messages: [null] }), 'messages[0]', 'invalid_type'],
    [chat({ messages: [{ role: 'wizard', content: 'x' }] }), 'messages[0].role', 'invalid_value'],
    [chat({ messages: [{ role: 'tool', content: 'x' }] }), 'messages[0].tool_call_id', 'missing_required_parameter'],
    [chat({ messages: [{ role: 'function', content: 'x' }] }), 'messages[0].role', 'unsupported_role'],
    [chat({ messages: [{ role: 'user' }] }), 'messages[0].content', 'missing_required_parameter'],
    [chat({ messages: [{ role: 'user', content: 5 }] }), 'messages[0].content', 'invalid_type'],
    [chat({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: {} }] }] }), 'messages[0].content[0]', 'unsupported_content'],
    [chat({ max_tokens: -1 }), 'max_tokens', 'invalid_value'],
    [chat({ max_tokens: 0 }), 'max_tokens', 'invalid_value'],
    [chat({ max_tokens: 1.5 }), 'max_tokens', 'invalid_type'],
    [chat({ max_tokens: '10' }), 'max_tokens', 'invalid_type'],
    [chat({ max_completion_tokens: 1e12 }), 'max_completion_tokens', 'invalid_value'],
    [chat({ temperature: 3 }), 'temperature', 'invalid_value'],
    [chat({ temperature: 'hot' }), 'temperature', 'invalid_type'],
    [chat({ top_p: 1.5 }), 'top_p', 'invalid_value'],
    [chat({ seed: 2 ** 40 }), 'seed', 'invalid_value'],
    [chat({ seed: 'x' }), 'seed', 'invalid_type'],
    [chat({ stop: 5 }), 'stop', 'invalid_type'],
    [chat({ stop: [''] }), 'stop', 'invalid_value'],
    [chat({ stop: Array(17).fill('x') }), 'stop', 'invalid_value'],
    [chat({ n: 2.5 }), 'n', 'invalid_type'],
    [chat({ n: 129 }), 'n', 'invalid_value'],
    [chat({ stream: 'yes' }), 'stream', 'invalid_type'],
    [chat({ stream_options: { include_usage: true } }), 'stream_options', 'invalid_value'],
    [chat({ top_logprobs: 2 }), 'top_logprobs', 'invalid_value'],
    [chat({ logprobs: true, top_logprobs: 21 }), 'top_logprobs', 'invalid_value'],
    [chat({ logit_bias: 'x' }), 'logit_bias', 'invalid_type'],
    [chat({ logit_bias: [[1, 2, 3]] }), 'logit_bias[0]', 'invalid_type'],
    [chat({ logit_bias: [[1, true]] }), 'logit_bias[0]', 'invalid_type'],
    [chat({ logit_bias: { '1': '5' } }), 'logit_bias.1', 'invalid_type'],
    [chat({ logit_bias: [[{}, 5]] }), 'logit_bias[0]', 'invalid_type'],
    [chat({ logit_bias: [[-3, 5]] }), 'logit_bias[0]', 'invalid_value'],
    [chat({ ignore_eos: 1 }), 'ignore_eos', 'invalid_type'],
    [chat({ stream: true, stream_options: { include_usage: 'yes' } }), 'include_usage', 'invalid_type'],
    [chat({ tools: [{ type: 'function' }] }), 'tools[0].function', 'missing_required_parameter'],
    [chat({ response_format: { type: 'json' } }), 'response_format.type', 'invalid_value'],
    [chat({ response_format: { type: 'json_schema', json_schema: { schema: { type: 'string', format: 'email' } } } }), 'response_format.json_schema.schema', 'unsupported_schema'],
    [chat({ grammar: 5 }), 'grammar', 'invalid_type'],
    [chat({ grammar: 'root ::= "a"', response_format: { type: 'json_object' } }), 'grammar', 'invalid_value'],
    [chat({ json_schema: { const: 1 }, response_format: { type: 'json_object' } }), 'json_schema', 'invalid_value'],
    [chat({ json_schema: { type: 'string', format: 'email' } }), 'json_schema', 'unsupported_schema'],
    [chat({ frequency_penalty: 5 }), 'frequency_penalty', 'invalid_value'],
  ])('refuses %j: 400 on %s (%s)', (body, param, code) => {
    const e = refusal(() => validateChatRequest(body));
    expect(e.status).toBe(400);
    expect(e.type).toBe('invalid_request_error');
    expect(e.param).toBe(param);
    expect(e.code).toBe(code);
  });

  it('response_format json_object / json_schema and llama-server\'s grammar become the sampler\'s grammar, on both endpoints', () => {
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false };
    expect(validateChatRequest(chat({ response_format: { type: 'json_object' } })).sampling.grammar).toBe(JSON_OBJECT_GBNF);
    expect(validateChatRequest(chat({ response_format: { type: 'json_schema', json_schema: { name: 'r', schema, strict: true } } })).sampling.grammar).toBe(jsonSchemaToGbnf(schema));
    expect(validateCompletionRequest(text({ response_format: { type: 'json_object' } })).sampling.grammar).toBe(JSON_OBJECT_GBNF);
    expect(validateCompletionRequest(text({ grammar: 'root ::= "yes" | "no"' })).sampling.grammar).toBe('root ::= "yes" | "no"');
    // llama-server's json_schema field, on both endpoints (llama.cpp's own suite sends it on chat)
    expect(validateChatRequest(chat({ json_schema: { const: '42' } })).sampling.grammar).toBe(jsonSchemaToGbnf({ const: '42' }));
    expect(validateCompletionRequest(text({ json_schema: schema })).sampling.grammar).toBe(jsonSchemaToGbnf(schema));
    expect(validateChatRequest(chat({ response_format: { type: 'text' }, grammar: '' })).sampling).not.toHaveProperty('grammar');
  });

  it('accepts and names what it does not know or apply: unknown parameters, message and stream_options fields; no model is the loaded one', () => {
    const r = validateChatRequest({
      messages: [{ role: 'user', content: 'x', reasoning_content: 'r' }],
      temprature: 0,
      cache_prompt: true,
      logit_bias: { '50256': -100 },
      stream: true,
      stream_options: { include_usage: true, colour: 1 },
    });
    expect(r.model).toBeNull();
    expect(r.sampling.temperature).toBe(1);
    expect(r.ignored.sort()).toEqual(['cache_prompt', 'messages[0].reasoning_content', 'stream_options.colour', 'temprature']);
    expect(r.sampling.logitBias).toEqual([{ token: 50256, bias: -100 }]);
    expect(validateChatRequest(chat({ logit_bias: {} })).sampling).not.toHaveProperty('logitBias');
    expect(validateCompletionRequest(text({ messages: [], max_completion_tokens: 3 })).ignored).toEqual(['messages', 'max_completion_tokens']);
  });

  it("token biases in OpenAI's object form and llama-server's pairs: ids, texts (to tokenize), false as a ban; ignore_eos", () => {
    const bias = (logit_bias: unknown) => validateCompletionRequest(text({ logit_bias })).sampling.logitBias;
    expect(bias({ '15': 2.5, ' the': -1, '7': false })).toEqual([
      { token: 7, bias: -Infinity },
      { token: 15, bias: 2.5 },
      { text: ' the', bias: -1 },
    ]);
    expect(bias([[15, -100], [' the ', false], ['15', 1]])).toEqual([
      { token: 15, bias: -100 },
      { text: ' the ', bias: -Infinity },
      // In a list, a string is a text even when it reads as a number (llama-server tokenizes it).
      { text: '15', bias: 1 },
    ]);
    expect(bias([])).toBeUndefined();
    expect(validateCompletionRequest(text({ ignore_eos: true })).sampling.ignoreEos).toBe(true);
    expect(validateChatRequest(chat({ ignore_eos: false })).sampling).not.toHaveProperty('ignoreEos');
  });

  it("keeps an assistant's reasoning_content where the model's Jinja template renders the turns (tools, tool turns), and names it ignored where llama.cpp's built-in templates do", () => {
    const turns = [
      { role: 'user', content: 'Fix it' },
      { role: 'assistant', content: null, reasoning_content: 'look first', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'a.py' },
    ];
    const withTools = validateChatRequest({ messages: turns });
    expect(withTools.messages?.[1]).toMatchObject({ role: 'assistant', reasoningContent: 'look first' });
    expect(withTools.ignored).toEqual([]);
    const plain = validateChatRequest({ messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: 'y', reasoning_content: 'r' }, { role: 'user', content: 'z' }] });
    expect(plain.messages?.[1]).toEqual({ role: 'assistant', content: 'y' });
    expect(plain.ignored).toEqual(['messages[1].reasoning_content']);
    expect(() => validateChatRequest({ messages: [...turns.slice(0, 1), { role: 'assistant', content: 'y', reasoning_content: 3 }] })).toThrow(/reasoning_content/);
  });

  it('refuses a body that is not an object', () => {
    for (const b of [null, [], 'x', 3, true]) expect(refusal(() => validateChatRequest(b)).code).toBe('invalid_body');
  });

  it('a JSON "__proto__" key is an ignored parameter, not a prototype', () => {
    const r = validateChatRequest(JSON.parse('{"model":"m","messages":[{"role":"user","content":"x"}],"__proto__":{"stream":true}}'));
    expect(r.stream).toBe(false);
    expect(r.ignored).toEqual(['__proto__']);
  });
});

describe('validateCompletionRequest', () => {
  it('takes a prompt string, or an array of one string, and echo', () => {
    expect(validateCompletionRequest(text())).toMatchObject({ kind: 'completion', prompt: 'Once', echo: false });
    expect(validateCompletionRequest(text({ prompt: ['Twice'], echo: true }))).toMatchObject({ prompt: 'Twice', echo: true });
    expect(validateCompletionRequest(text({ suffix: '', best_of: 1, logprobs: 0 })).prompt).toBe('Once');
  });

  it.each([
    [{ model: 'm' }, 'prompt', 'missing_required_parameter'],
    [text({ prompt: 5 }), 'prompt', 'invalid_type'],
    [text({ prompt: ['a', 3] }), 'prompt[1]', 'invalid_type'],
    [text({ prompt: [] }), 'prompt', 'invalid_value'],
    [text({ prompt: ['a', 'b'], n: 65 }), 'n', 'invalid_value'],
    [text({ prompt: ['a', 'b'], n: 65 }), 'n', 'invalid_value'],
    [text({ prompt: [1, -2, 3] }), 'prompt', 'invalid_type'],
    [text({ prompt: [1, 2], echo: true }), 'echo', 'unsupported_parameter'],
    [text({ prompt: [1, 2], suffix: 'end' }), 'suffix', 'unsupported_parameter'],
    [text({ echo: true, suffix: 'end' }), 'echo', 'unsupported_parameter'],
    [text({ echo: true, logprobs: 1, stream: true }), 'stream', 'unsupported_parameter'],
    [text({ best_of: 3 }), 'best_of', 'unsupported_parameter'],
    [text({ logprobs: 21 }), 'logprobs', 'invalid_value'],
  ])('refuses %j: 400 on %s (%s)', (body, param, code) => {
    const e = refusal(() => validateCompletionRequest(body));
    expect([e.status, e.param, e.code]).toEqual([400, param, code]);
  });
});
