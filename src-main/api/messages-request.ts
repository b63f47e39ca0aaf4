// Anthropic's Messages API (POST /v1/messages, what coding agents pointed at a local server send)
// in the terms of a chat completion: `system` (a string or text blocks) the system turn, each
// message's content blocks the chat's turns (text; an assistant's `tool_use` blocks its tool
// calls; a user's `tool_result` blocks tool turns, before its text), `tools` (`input_schema`)
// and `tool_choice` (auto, any, tool, none) the chat's, `stop_sequences` the stop strings; then
// the chat route's checks. `cache_control` on any block is a caching hint with no effect here.
// Images, documents and server tools are 400. Pure.
import { badRequest } from './errors.js';
import { given, optInt, optNumber, optObject, unknownNames, type Body } from './check-value.js';
import { LIMITS } from '../shared/settings/run-settings.js';
import type { ApiGeneration } from './request-types.js';
import { validateChatRequest } from './validate-request.js';
import { OPENAI_DEFAULTS, type GenerationDefaults } from './generation-defaults.js';

const MESSAGES_PARAMS = new Set([
  'model', 'messages', 'system', 'max_tokens', 'stop_sequences', 'temperature', 'top_p', 'top_k', 'stream', 'tools', 'tool_choice', 'metadata',
  'thinking', 'service_tier', 'container', 'mcp_servers', 'context_management',
]);
/** Accepted and without effect here (named back to the client). */
const NO_EFFECT = ['thinking', 'service_tier', 'container', 'context_management'];

const isObject = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);

function block(v: unknown, at: string): Body {
  if (!isObject(v)) throw badRequest(`'${at}' must be a content block object`, at, 'invalid_type');
  return v;
}

function textOfBlocks(v: unknown, at: string): string {
  if (typeof v === 'string') return v;
  if (!Array.isArray(v)) throw badRequest(`'${at}' must be a string or an array of content blocks`, at, 'invalid_type');
  return v
    .map((x, j) => {
      const b = block(x, `${at}[${j}]`);
      if (b.type !== 'text') throw badRequest(`'${at}[${j}]': only text blocks are supported here (got type ${JSON.stringify(b.type)})`, `${at}[${j}]`, 'unsupported_content');
      if (typeof b.text !== 'string') throw badRequest(`'${at}[${j}].text' must be a string`, `${at}[${j}].text`, 'invalid_type');
      return b.text;
    })
    .join('\n');
}

/** One Anthropic message as chat messages. */
function addMessage(out: Body[], m: unknown, i: number): void {
  const at = `messages[${i}]`;
  if (!isObject(m)) throw badRequest(`'${at}' must be an object`, at, 'invalid_type');
  if (m.role !== 'user' && m.role !== 'assistant') throw badRequest(`'${at}.role' must be user or assistant`, `${at}.role`, 'invalid_value');
  if (typeof m.content === 'string') return void out.push({ role: m.role, content: m.content });
  if (!Array.isArray(m.content)) throw badRequest(`'${at}.content' must be a string or an array of content blocks`, `${at}.content`, 'invalid_type');
  const texts: string[] = [];
  const calls: Body[] = [];
  /** An assistant's thinking blocks: its reasoning_content, which templates such as Qwen3's render. */
  const thoughts: string[] = [];
  for (const [j, x] of m.content.entries()) {
    const bt = `${at}.content[${j}]`;
    const b = block(x, bt);
    if (b.type === 'text') texts.push(textOfBlocks([b], bt));
    else if (b.type === 'tool_use' && m.role === 'assistant') {
      if (typeof b.id !== 'string' || typeof b.name !== 'string' || !isObject(b.input)) throw badRequest(`'${bt}' must be {"type": "tool_use", "id", "name", "input": {…}}`, bt, 'invalid_type');
      calls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input) } });
    } else if (b.type === 'tool_result' && m.role === 'user') {
      if (typeof b.tool_use_id !== 'string') throw badRequest(`'${bt}.tool_use_id' must be a string`, `${bt}.tool_use_id`, 'invalid_type');
      out.push({ role: 'tool', tool_call_id: b.tool_use_id, content: given(b.content) ? textOfBlocks(b.content, `${bt}.content`) : '' });
    } else if (b.type === 'thinking' && m.role === 'assistant' && typeof b.thinking === 'string') {
      thoughts.push(b.thinking);
    } else if (b.type !== 'thinking' && b.type !== 'redacted_thinking') {
      // Redacted thinking is opaque; images and documents are not read.
      throw badRequest(`'${bt}.type' ${JSON.stringify(b.type)} is not supported in a ${String(m.role)} message (text, tool_use, tool_result)`, `${bt}.type`, 'unsupported_content');
    }
  }
  const reasoning = thoughts.length > 0 ? { reasoning_content: thoughts.join('\n') } : {};
  if (calls.length > 0) out.push({ role: 'assistant', content: texts.length > 0 ? texts.join('\n') : null, tool_calls: calls, ...reasoning });
  else if (texts.length > 0 || m.role === 'assistant') out.push({ role: m.role, content: texts.join('\n'), ...reasoning });
}

function toolsOf(v: unknown): Body[] | undefined {
  if (!given(v)) return undefined;
  if (!Array.isArray(v)) throw badRequest("'tools' must be an array of tools", 'tools', 'invalid_type');
  return v.map((t: unknown, i) => {
    const at = `tools[${i}]`;
    if (!isObject(t)) throw badRequest(`'${at}' must be an object`, at, 'invalid_type');
    if (given(t.type) && t.type !== 'custom') throw badRequest(`'${at}.type' ${JSON.stringify(t.type)}: only client tools (name, description, input_schema) are supported`, `${at}.type`, 'invalid_value');
    if (given(t.input_schema) && !isObject(t.input_schema)) throw badRequest(`'${at}.input_schema' must be a JSON schema object`, `${at}.input_schema`, 'invalid_type');
    return { type: 'function', function: { name: t.name, ...(given(t.description) ? { description: t.description } : {}), ...(given(t.input_schema) ? { parameters: t.input_schema } : {}) } };
  });
}

function toolChoiceOf(v: unknown): { choice?: unknown; parallel?: boolean } {
  const c = optObject({ tool_choice: v }, 'tool_choice');
  if (c === null) return {};
  const parallel = c.disable_parallel_tool_use === true ? { parallel: false } : {};
  if (c.type === 'auto' || c.type === 'none') return { choice: c.type, ...parallel };
  if (c.type === 'any') return { choice: 'required', ...parallel };
  if (c.type === 'tool' && typeof c.name === 'string') return { choice: { type: 'function', function: { name: c.name } }, ...parallel };
  throw badRequest("'tool_choice' must be {\"type\": \"auto\"}, {\"type\": \"any\"}, {\"type\": \"none\"} or {\"type\": \"tool\", \"name\": …}", 'tool_choice', 'invalid_value');
}

export function validateMessagesRequest(body: unknown, defaults: GenerationDefaults = OPENAI_DEFAULTS): ApiGeneration {
  if (!isObject(body)) throw badRequest('the request body must be a JSON object', null, 'invalid_body');
  const b = body;
  const ignored = unknownNames(b, MESSAGES_PARAMS);
  for (const p of NO_EFFECT) if (given(b[p])) ignored.push(p);
  if (given(b.mcp_servers) && !(Array.isArray(b.mcp_servers) && b.mcp_servers.length === 0)) throw badRequest('this server connects to no MCP servers', 'mcp_servers', 'unsupported_parameter');
  const maxTokens = optInt(b, 'max_tokens', 1, LIMITS.maxTokens.max);
  // Anthropic's temperature runs from 0 to 1.
  optNumber(b, 'temperature', 0, 1);
  optObject(b, 'metadata');
  const chat: Body = { messages: [] };
  const messages = chat.messages as Body[];
  if (given(b.system)) messages.push({ role: 'system', content: textOfBlocks(b.system, 'system') });
  if (!Array.isArray(b.messages)) throw badRequest(given(b.messages) ? "'messages' must be an array of messages" : "'messages' is required", 'messages', given(b.messages) ? 'invalid_type' : 'missing_required_parameter');
  b.messages.forEach((m, i) => addMessage(messages, m, i));
  if (maxTokens !== null) chat.max_tokens = maxTokens;
  if (given(b.stop_sequences)) chat.stop = b.stop_sequences;
  for (const p of ['model', 'temperature', 'top_p', 'top_k', 'stream']) if (given(b[p])) chat[p] = b[p];
  const tools = toolsOf(b.tools);
  if (tools) chat.tools = tools;
  const { choice, parallel } = toolChoiceOf(b.tool_choice);
  if (choice !== undefined) chat.tool_choice = choice;
  if (parallel !== undefined) chat.parallel_tool_calls = parallel;
  // An empty list (and no system text) is answered, as llama-server does: it renders what the
  // chat template makes of no turns, the assistant's opening, and the model goes on from there.
  const gen = validateChatRequest(chat, defaults, true);
  return { ...gen, ignored: [...ignored, ...gen.ignored] };
}
