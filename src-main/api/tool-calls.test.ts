// Tool calls out of generated text: whole blocks become calls, anything else stays content
// (a malformed block included), and the stream splitter gives the same split in pieces.
import { describe, expect, it } from 'vitest';
import { ToolCallSplitter, parseToolCalls } from './tool-calls.js';

const names = new Set(['get_weather', 'add']);

describe('parseToolCalls', () => {
  it('parses calls into name and JSON arguments, content outside them or null', () => {
    const one = parseToolCalls('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>', names);
    expect(one).toEqual({ content: null, calls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }] });
    const two = parseToolCalls('Checking.\n<tool_call>{"name":"add","arguments":{"a":1}}</tool_call>\n<tool_call>{"name":"add","arguments":"{\\"a\\":2}"}</tool_call>', names);
    expect(two.content).toBe('Checking.');
    expect(two.calls.map((c) => c.arguments)).toEqual(['{"a":1}', '{"a":2}']);
  });

  it('leaves malformed blocks as content: bad JSON, an undeclared tool, no arguments object', () => {
    for (const text of [
      '<tool_call>{"name": "get_weather", "arguments": {</tool_call>',
      '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>',
      '<tool_call>{"name": "add", "arguments": [1]}</tool_call>',
      '<tool_call>[1, 2]</tool_call>',
      'no calls at all',
    ]) {
      expect(parseToolCalls(text, names)).toEqual({ content: text, calls: [] });
    }
  });

  it('takes an unclosed block only at the end of the text, and at most `max` calls', () => {
    expect(parseToolCalls('<tool_call>{"name":"add","arguments":{}}', names).calls).toHaveLength(1);
    const text = '<tool_call>{"name":"add","arguments":{"a":1}}</tool_call><tool_call>{"name":"add","arguments":{"a":2}}</tool_call>';
    const r = parseToolCalls(text, names, 1);
    expect(r.calls).toEqual([{ name: 'add', arguments: '{"a":1}' }]);
    expect(r.content).toBe('<tool_call>{"name":"add","arguments":{"a":2}}</tool_call>');
  });
});

describe('ToolCallSplitter', () => {
  const text = 'Let me see <tool_ca ll>… <tool_call>\n{"name": "add", "arguments": {"a": 1}}\n</tool_call> done';
  it('passes content on, holds a possible partial tag and everything from the first <tool_call>, in any split', () => {
    for (const size of [1, 2, 3, 7, 100]) {
      const s = new ToolCallSplitter();
      let out = '';
      for (let i = 0; i < text.length; i += size) out += s.push(text.slice(i, i + size));
      expect(out).toBe('Let me see <tool_ca ll>… ');
      const end = s.finish(names);
      expect(end.calls).toEqual([{ name: 'add', arguments: '{"a":1}' }]);
      expect(end.content).toBe('done');
    }
  });

  it('gives a held block back as content when it is no call, and a held partial tag at the end', () => {
    const s = new ToolCallSplitter();
    expect(s.push('x <tool_call>{"name": "nope", "arguments": {}}</tool_call>')).toBe('x ');
    expect(s.finish(names)).toEqual({ content: '<tool_call>{"name": "nope", "arguments": {}}</tool_call>', calls: [] });
    const t = new ToolCallSplitter();
    expect(t.push('ends with <tool')).toBe('ends with ');
    expect(t.finish(names)).toEqual({ content: '<tool', calls: [] });
  });
});
