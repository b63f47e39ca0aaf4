// Tool calling on Ollama's /api/chat, in Ollama's field names: `tools` as OpenAI declares them,
// assistant turns with `tool_calls` whose arguments are an object, `tool` turns with the result
// (and `tool_name`); the answer's calls as `message.tool_calls: [{function: {name, arguments}}]`.
// Rendering and parsing are the OpenAI route's: the model's own template (Hermes / Qwen2.5 format
// only) and the same `<tool_call>` parser. Pure.
import type { ToolCallMessage } from '../shared/worker-protocol.js';
import { badRequest } from './errors.js';
import type { Body } from './check-value.js';
import { MAX_MESSAGE_TOOL_CALLS } from './validate-request.js';
import type { ParsedCall } from './tool-calls.js';

const isObject = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An assistant message's `tool_calls`, as Ollama returned them (ids made up where Ollama has none). */
export function ollamaMessageCalls(v: unknown, at: string): ToolCallMessage[] {
  if (!Array.isArray(v)) throw badRequest(`'${at}' must be an array of tool calls`, at, 'invalid_type');
  if (v.length > MAX_MESSAGE_TOOL_CALLS) throw badRequest(`'${at}' may hold at most ${MAX_MESSAGE_TOOL_CALLS} calls`, at, 'invalid_value');
  return v.map((c: unknown, j): ToolCallMessage => {
    const ct = `${at}[${j}]`;
    const f = isObject(c) ? c.function : undefined;
    if (!isObject(f)) throw badRequest(`'${ct}' must be {"function": {"name", "arguments"}}`, `${ct}.function`, 'invalid_type');
    if (typeof f.name !== 'string' || f.name.length === 0 || f.name.length > 64) throw badRequest(`'${ct}.function.name' must be a string of 1 to 64 characters`, `${ct}.function.name`, 'invalid_value');
    const args = f.arguments ?? {};
    if (!isObject(args)) throw badRequest(`'${ct}.function.arguments' must be an object`, `${ct}.function.arguments`, 'invalid_type');
    const id = isObject(c) && typeof c.id === 'string' && c.id.length > 0 && c.id.length <= 256 ? c.id : `call_${j}`;
    return { id, name: f.name, arguments: JSON.stringify(args) };
  });
}

/** The calls of an answer in Ollama's shape: arguments as an object (the parser only keeps calls whose arguments are one). */
export function ollamaCallsOut(calls: ParsedCall[]): object[] {
  return calls.map((c) => ({ function: { name: c.name, arguments: JSON.parse(c.arguments) as object } }));
}
