// The Jinja path of the worker: the synthetic tool template renders tools, calls and results in
// the Hermes/Qwen2.5 format, renders plain chats exactly as the ChatML template does (so the
// built-in matcher's path and this one agree), and a broken template is a ChatTemplateError.
import { describe, expect, it } from 'vitest';
import { CHATML_TEMPLATE, TOOLS_CHATML_TEMPLATE } from '../synth/chat-templates.js';
import type { ChatMessage } from '../shared/worker-protocol.js';
import { ChatTemplateError, needsToolRendering, renderToolChat } from './tool-template.js';

const NO_TOKENS = { bos: '', eos: '' };
const tools = [{ name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];

describe('renderToolChat', () => {
  it('renders tools into the system turn, assistant calls as <tool_call> blocks and tool results as <tool_response> in one user turn', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Oslo and Bergen?' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{"city":"Oslo"}' }, { id: 'c2', name: 'get_weather', arguments: '{"city":"Bergen"}' }] },
      { role: 'tool', content: 'sunny', toolCallId: 'c1' },
      { role: 'tool', content: 'rain', toolCallId: 'c2' },
    ];
    const text = renderToolChat(TOOLS_CHATML_TEMPLATE, messages, tools, NO_TOKENS);
    expect(text.startsWith('<|im_start|>system\nBe brief.\n\n# Tools\n')).toBe(true);
    const toolLine = text.split('\n').find((l) => l.startsWith('{"type"'));
    expect(JSON.parse(toolLine ?? 'null')).toEqual({ type: 'function', function: tools[0] });
    expect(text).toContain('<|im_start|>user\nWeather in Oslo and Bergen?<|im_end|>\n');
    const call = /<\|im_start\|>assistant\n<tool_call>\n(.*)\n<\/tool_call>\n<tool_call>\n(.*)\n<\/tool_call><\|im_end\|>\n/.exec(text);
    expect(call).not.toBeNull();
    expect(JSON.parse(call?.[1] ?? '')).toEqual({ name: 'get_weather', arguments: { city: 'Oslo' } });
    expect(text).toContain('<|im_start|>user\n<tool_response>\nsunny\n</tool_response>\n<tool_response>\nrain\n</tool_response><|im_end|>\n');
    expect(text.endsWith('<|im_start|>assistant\n')).toBe(true);
  });

  it('without tools renders a plain chat exactly as the ChatML template (which llama.cpp\'s matcher renders)', () => {
    for (const messages of [
      [{ role: 'user', content: 'hi' }],
      [{ role: 'system', content: 'S' }, { role: 'user', content: 'hi' }, { role: 'assistant', content: 'yo' }, { role: 'user', content: 'again' }],
    ] as ChatMessage[][]) {
      expect(renderToolChat(TOOLS_CHATML_TEMPLATE, messages, [], NO_TOKENS)).toBe(renderToolChat(CHATML_TEMPLATE, messages, [], NO_TOKENS));
    }
  });

  it('add_generation_prompt false (llama-server\'s /apply-template may ask) leaves out the opening of the answer', () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'hi' }];
    const withOpening = renderToolChat(TOOLS_CHATML_TEMPLATE, messages, tools, NO_TOKENS);
    const without = renderToolChat(TOOLS_CHATML_TEMPLATE, messages, tools, NO_TOKENS, false);
    expect(without.endsWith('<|im_start|>assistant\n')).toBe(false);
    expect(withOpening).toBe(`${without}<|im_start|>assistant\n`);
  });

  it("hands an assistant's reasoning_content to the template (Qwen3's renders it in <think>), and none where there is none", () => {
    const template = "{% for m in messages %}[{{ m.role }}{% if m.reasoning_content %} <think>{{ m.reasoning_content }}</think>{% endif %}] {{ m.content }}\n{% endfor %}";
    const messages: ChatMessage[] = [
      { role: 'user', content: 'Fix it' },
      { role: 'assistant', content: 'Done.', reasoningContent: 'check the file first' },
    ];
    expect(renderToolChat(template, messages, tools, NO_TOKENS)).toBe('[user] Fix it\n[assistant <think>check the file first</think>] Done.\n');
  });

  it('a template that does not parse or fails while rendering is a ChatTemplateError, not a crash', () => {
    const messages: ChatMessage[] = [{ role: 'user', content: 'hi' }];
    expect(() => renderToolChat('{% for x in %}', messages, [], NO_TOKENS)).toThrow(ChatTemplateError);
    expect(() => renderToolChat('{{ raise_exception("no tools here") }}', messages, [], NO_TOKENS)).toThrow(ChatTemplateError);
    expect(() => renderToolChat('{{ messages[0].content.nope() }}', messages, [], NO_TOKENS)).toThrow(ChatTemplateError);
  });

  it('bounds the rendered text', () => {
    const big = '{% for i in range(3000) %}{{ "' + 'x'.repeat(3000) + '" }}{% endfor %}';
    expect(() => renderToolChat(big, [{ role: 'user', content: 'hi' }], [], NO_TOKENS)).toThrow(/rendered more than/);
  });

  it('takes the Jinja path for tools, tool results and assistant calls only', () => {
    expect(needsToolRendering([{ role: 'user', content: 'hi' }], undefined)).toBe(false);
    expect(needsToolRendering([{ role: 'user', content: 'hi' }], [])).toBe(true);
    expect(needsToolRendering([{ role: 'tool', content: 'x', toolCallId: 'a' }], undefined)).toBe(true);
    expect(needsToolRendering([{ role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'f', arguments: '{}' }] }], undefined)).toBe(true);
  });
});
