// tools, tool_choice, parallel_tool_calls and tool messages: what is accepted and in what terms,
// what is refused (400 naming the field), and the grammar that forces a call.
import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.js';
import { validateChatRequest } from './validate-request.js';
import { forcedCallGrammar, templateSupportsTools } from './tool-request.js';

const weather = { type: 'function', function: { name: 'get_weather', description: 'The weather', parameters: { type: 'object', properties: { city: { type: 'string', enum: ['Oslo', 'Bergen'] } }, required: ['city'] } } };
const add = { type: 'function', function: { name: 'add', parameters: { type: 'object', properties: { a: { type: 'integer' } } } } };
const chat = (extra: Record<string, unknown>) => ({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra });

function refusal(body: unknown): ApiError {
  try {
    validateChatRequest(body);
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('accepted');
}

describe('tool fields on chat completions', () => {
  it('accepts tools with auto by default, no grammar; named and required choices force a call by grammar', () => {
    const auto = validateChatRequest(chat({ tools: [weather, add] }));
    expect(auto.tools).toMatchObject({ choice: 'auto', parallel: true, grammar: null });
    expect(auto.tools?.tools.map((t) => t.name)).toEqual(['get_weather', 'add']);
    expect(auto.sampling.grammar).toBeUndefined();
    const named = validateChatRequest(chat({ tools: [weather, add], tool_choice: { type: 'function', function: { name: 'add' } }, parallel_tool_calls: false }));
    expect(named.tools).toMatchObject({ choice: { name: 'add' }, parallel: false });
    expect(named.sampling.grammar).toBe(forcedCallGrammar([{ name: 'add', parameters: add.function.parameters }], 'tool_choice'));
    expect(named.sampling.grammar).toMatch(/^root ::= "<tool_call>\\n" tool-call-json "\\n<\/tool_call>"\n/);
    expect(named.sampling.grammar).not.toMatch(/^root ::= [^"]/m);
    const required = validateChatRequest(chat({ tools: [weather, add], tool_choice: 'required' }));
    expect(required.sampling.grammar).toContain('"\\"get_weather\\""');
    expect(required.sampling.grammar).toContain('"\\"add\\""');
    expect(validateChatRequest(chat({ tools: [weather], tool_choice: 'none' })).tools?.choice).toBe('none');
    expect(validateChatRequest(chat({ tools: [], tool_choice: 'none' })).tools).toBeNull();
  });

  it('accepts a round trip: assistant tool_calls with null content, then the tool result', () => {
    const r = validateChatRequest(
      chat({
        tools: [weather],
        messages: [
          { role: 'user', content: 'Weather in Oslo?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'sunny' }] },
        ],
      }),
    );
    expect(r.messages).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] },
      { role: 'tool', content: 'sunny', toolCallId: 'call_1' },
    ]);
  });

  it.each([
    [chat({ tools: 'f' }), 'tools', 'invalid_type'],
    [chat({ tools: [{ type: 'retrieval' }] }), 'tools[0].type', 'invalid_value'],
    [chat({ tools: [{ type: 'function', function: { name: 'a b' } }] }), 'tools[0].function.name', 'invalid_value'],
    [chat({ tools: [{ type: 'function', function: { name: 'f', parameters: [] } }] }), 'tools[0].function.parameters', 'invalid_type'],
    [chat({ tools: [{ type: 'function', function: { name: 'f', returns: {} } }] }), 'tools[0].function.returns', 'unknown_parameter'],
    [chat({ tools: [weather, weather] }), 'tools[1].function.name', 'invalid_value'],
    [chat({ tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'string', format: 'email' } } }], tool_choice: 'required' }), 'tool_choice', 'unsupported_schema'],
    [chat({ tool_choice: 'required' }), 'tool_choice', 'invalid_value'],
    [chat({ tools: [weather], tool_choice: 'sometimes' }), 'tool_choice', 'invalid_value'],
    [chat({ tools: [weather], tool_choice: { type: 'function', function: { name: 'add' } } }), 'tool_choice.function.name', 'invalid_value'],
    [chat({ tools: [weather], tool_choice: { type: 'function' } }), 'tool_choice.function', 'missing_required_parameter'],
    [chat({ tools: [weather], tool_choice: 'required', response_format: { type: 'json_object' } }), 'tool_choice', 'invalid_value'],
    [chat({ parallel_tool_calls: 'no' }), 'parallel_tool_calls', 'invalid_type'],
    [chat({ functions: [{ name: 'f' }] }), 'functions', 'unsupported_parameter'],
    [chat({ messages: [{ role: 'tool', content: 'x' }] }), 'messages[0].tool_call_id', 'missing_required_parameter'],
    [chat({ messages: [{ role: 'user', content: 'x', tool_call_id: 'c' }] }), 'messages[0].tool_call_id', 'invalid_value'],
    [chat({ messages: [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: {} } }] }] }), 'messages[0].tool_calls[0].function.arguments', 'invalid_type'],
    [chat({ messages: [{ role: 'user', content: 'x', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }] }), 'messages[0].tool_calls', 'invalid_value'],
    [chat({ messages: [{ role: 'assistant', content: null }] }), 'messages[0].content', 'missing_required_parameter'],
  ])('refuses %j: 400 on %s (%s)', (body, param, code) => {
    const e = refusal(body);
    expect(e.status).toBe(400);
    expect(e.param).toBe(param);
    expect(e.code).toBe(code);
  });

  it('a template supports tools when it writes <tool_call> blocks', () => {
    expect(templateSupportsTools('{{ "<tool_call>" }}')).toBe(true);
    expect(templateSupportsTools('<|im_start|>')).toBe(false);
    expect(templateSupportsTools(null)).toBe(false);
  });
});
