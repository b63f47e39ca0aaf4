import { describe, expect, it } from 'vitest';
import { validateMessagesRequest } from './messages-request.js';

describe('validateMessagesRequest', () => {
  it("an assistant's thinking blocks become its reasoning_content (templates such as Qwen3's render it); redacted thinking stays out", () => {
    const gen = validateMessagesRequest({
      messages: [
        { role: 'user', content: 'Fix the bug' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Check the files first.', signature: 's' },
            { type: 'redacted_thinking', data: 'opaque' },
            { type: 'tool_use', id: 'call_1', name: 'list_files', input: { path: '.' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'main.py' }] },
      ],
      tools: [{ name: 'list_files', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }],
    });
    expect(gen.messages?.[1]).toMatchObject({ role: 'assistant', reasoningContent: 'Check the files first.', toolCalls: [{ id: 'call_1', name: 'list_files' }] });
    expect(gen.messages?.[2]).toMatchObject({ role: 'tool', toolCallId: 'call_1', content: 'main.py' });
  });
});
