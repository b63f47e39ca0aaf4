// OpenAI's Responses API (POST /v1/responses) in the terms of a chat completion: `input` (a
// string, or message, function_call and function_call_output items) and `instructions` become
// the chat turns, `tools` (flat function tools) and `tool_choice` the chat's, `text.format` a
// response_format, `max_output_tokens` the token limit; everything then goes through the same
// checks as /v1/chat/completions. Conversation state kept by the server (`previous_response_id`,
// `conversation`, stored prompts, background runs) is not: 400 unless empty. Pure.
import { badRequest } from './errors.js';
import { given, onlyNeutral, optBool, optInt, optNumber, optObject, optString, unknownNames, type Body } from './check-value.js';
import { LIMITS } from '../shared/settings/run-settings.js';
import type { ApiGeneration } from './request-types.js';
import { validateChatRequest } from './validate-request.js';
import { OPENAI_DEFAULTS, type GenerationDefaults } from './generation-defaults.js';

/** What the answer repeats of the request (the Response object echoes its settings). */
export interface ResponsesEcho {
  instructions: string | null;
  maxOutputTokens: number | null;
  temperature: number;
  topP: number;
  toolChoice: unknown;
  tools: unknown[];
  parallelToolCalls: boolean;
  textFormat: object;
  metadata: Body;
}

export interface ResponsesRequest {
  gen: ApiGeneration;
  echo: ResponsesEcho;
}

const RESPONSES_PARAMS = new Set([
  'model', 'input', 'instructions', 'max_output_tokens', 'temperature', 'top_p', 'stream', 'tools', 'tool_choice', 'parallel_tool_calls', 'text',
  'store', 'metadata', 'user', 'previous_response_id', 'conversation', 'prompt', 'reasoning', 'truncation', 'include', 'background', 'service_tier',
  'prompt_cache_key', 'safety_identifier', 'top_logprobs', 'max_tool_calls', 'stream_options',
  // llama.cpp's samplers, as on the chat route.
  'top_k', 'min_p', 'repeat_penalty', 'seed',
]);
/** Passed to the chat checks as they are. */
const AS_IS = ['model', 'temperature', 'top_p', 'stream', 'parallel_tool_calls', 'user', 'metadata', 'store', 'service_tier', 'prompt_cache_key', 'safety_identifier', 'top_k', 'min_p', 'repeat_penalty', 'seed'];
/** Accepted, type-checked by kind, and without effect (named back to the client). */
const NO_EFFECT = ['reasoning', 'include', 'truncation', 'max_tool_calls', 'stream_options'];

const isObject = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A message item's content: a string, or text parts (input_text, output_text). */
function textOf(v: unknown, at: string): string {
  if (typeof v === 'string') return v;
  if (!Array.isArray(v)) throw badRequest(`'${at}' must be a string or an array of content parts`, at, 'invalid_type');
  return v
    .map((p: unknown, j) => {
      const pt = `${at}[${j}]`;
      if (!isObject(p)) throw badRequest(`'${pt}' must be a content part object`, pt, 'invalid_type');
      if (p.type !== 'input_text' && p.type !== 'output_text' && p.type !== 'text') throw badRequest(`'${pt}': only text parts are supported (got type ${JSON.stringify(p.type)})`, pt, 'unsupported_content');
      if (typeof p.text !== 'string') throw badRequest(`'${pt}.text' must be a string`, `${pt}.text`, 'invalid_type');
      return p.text;
    })
    .join('\n');
}

/** One input item as chat messages (function calls join the assistant message before them). */
function addItem(out: Body[], item: unknown, i: number): void {
  const at = `input[${i}]`;
  if (!isObject(item)) throw badRequest(`'${at}' must be an object`, at, 'invalid_type');
  const type = item.type ?? 'message';
  if (type === 'message') {
    const role = item.role;
    if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'developer') throw badRequest(`'${at}.role' must be user, assistant, system or developer`, `${at}.role`, 'invalid_value');
    out.push({ role, content: textOf(item.content, `${at}.content`) });
  } else if (type === 'function_call') {
    for (const k of ['call_id', 'name', 'arguments']) if (typeof item[k] !== 'string') throw badRequest(`'${at}.${k}' must be a string`, `${at}.${k}`, 'invalid_type');
    const call = { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } };
    const last = out[out.length - 1];
    if (last && last.role === 'assistant' && Array.isArray(last.tool_calls)) (last.tool_calls as unknown[]).push(call);
    else out.push({ role: 'assistant', content: null, tool_calls: [call] });
  } else if (type === 'function_call_output') {
    if (typeof item.call_id !== 'string') throw badRequest(`'${at}.call_id' must be a string`, `${at}.call_id`, 'invalid_type');
    out.push({ role: 'tool', tool_call_id: item.call_id, content: textOf(item.output, `${at}.output`) });
  } else if (type !== 'reasoning') {
    // A model's reasoning items carry nothing its template renders; other kinds are tools this server does not run.
    throw badRequest(`'${at}.type' ${JSON.stringify(type)} is not supported: message, function_call, function_call_output (and reasoning, skipped)`, `${at}.type`, 'invalid_value');
  }
}

function messagesOf(b: Body): Body[] {
  const out: Body[] = [];
  const instructions = optString(b, 'instructions', 1 << 22);
  if (instructions) out.push({ role: 'system', content: instructions });
  const input = b.input;
  if (!given(input)) throw badRequest("'input' is required", 'input', 'missing_required_parameter');
  if (typeof input === 'string') out.push({ role: 'user', content: input });
  else if (Array.isArray(input)) input.forEach((item, i) => addItem(out, item, i));
  else throw badRequest("'input' must be a string or an array of input items", 'input', 'invalid_type');
  return out;
}

function toolsOf(v: unknown): Body[] | undefined {
  if (!given(v)) return undefined;
  if (!Array.isArray(v)) throw badRequest("'tools' must be an array of tools", 'tools', 'invalid_type');
  return v.map((t: unknown, i) => {
    if (!isObject(t)) throw badRequest(`'tools[${i}]' must be an object`, `tools[${i}]`, 'invalid_type');
    if (t.type !== 'function') throw badRequest(`'tools[${i}].type' ${JSON.stringify(t.type)}: only function tools are supported (this server runs no built-in tools)`, `tools[${i}].type`, 'invalid_value');
    const { type: _type, ...fn } = t;
    return { type: 'function', function: fn };
  });
}

function toolChoiceOf(v: unknown): unknown {
  if (!given(v) || typeof v === 'string') return v;
  if (isObject(v) && v.type === 'function' && typeof v.name === 'string') return { type: 'function', function: { name: v.name } };
  throw badRequest("'tool_choice' must be \"auto\", \"none\", \"required\" or {\"type\": \"function\", \"name\": …}", 'tool_choice', 'invalid_value');
}

/** `text.format` as the chat route's response_format. */
function formatOf(b: Body, ignored: string[]): { responseFormat: Body | undefined; echo: object } {
  const text = optObject(b, 'text');
  const f = text === null ? null : optObject(text, 'format');
  if (text) ignored.push(...unknownNames(text, new Set(['format', 'verbosity']), 'text.'));
  if (f === null || f.type === 'text') return { responseFormat: undefined, echo: { type: 'text' } };
  if (f.type === 'json_object') return { responseFormat: { type: 'json_object' }, echo: f };
  if (f.type !== 'json_schema') throw badRequest("'text.format.type' must be text, json_object or json_schema", 'text.format.type', 'invalid_value');
  const { type: _type, ...schema } = f;
  return { responseFormat: { type: 'json_schema', json_schema: schema }, echo: f };
}

export function validateResponsesRequest(body: unknown, defaults: GenerationDefaults = OPENAI_DEFAULTS): ResponsesRequest {
  if (!isObject(body)) throw badRequest('the request body must be a JSON object', null, 'invalid_body');
  const b = body;
  const ignored = unknownNames(b, RESPONSES_PARAMS);
  const maxOutputTokens = optInt(b, 'max_output_tokens', 1, LIMITS.maxTokens.max);
  optNumber(b, 'temperature', 0, 2);
  optNumber(b, 'top_p', 0, 1);
  optBool(b, 'background');
  onlyNeutral(b, 'background', (v) => v === false, 'responses are answered at once (no background runs)');
  for (const p of ['previous_response_id', 'conversation', 'prompt']) onlyNeutral(b, p, () => false, 'this server keeps no responses, conversations or stored prompts: send the whole conversation as input');
  onlyNeutral(b, 'top_logprobs', (v) => v === 0, 'log probabilities are not returned');
  for (const p of NO_EFFECT) if (given(b[p])) ignored.push(p);
  const { responseFormat, echo: textFormat } = formatOf(b, ignored);
  const chat: Body = { messages: messagesOf(b) };
  for (const p of AS_IS) if (given(b[p])) chat[p] = b[p];
  if (maxOutputTokens !== null) chat.max_completion_tokens = maxOutputTokens;
  const tools = toolsOf(b.tools);
  if (tools) chat.tools = tools;
  if (given(b.tool_choice)) chat.tool_choice = toolChoiceOf(b.tool_choice);
  if (responseFormat) chat.response_format = responseFormat;
  const gen = validateChatRequest(chat, defaults);
  return {
    gen: { ...gen, ignored: [...ignored, ...gen.ignored] },
    echo: {
      instructions: typeof b.instructions === 'string' ? b.instructions : null,
      maxOutputTokens,
      temperature: gen.sampling.temperature,
      topP: gen.sampling.topP,
      toolChoice: b.tool_choice ?? 'auto',
      tools: Array.isArray(b.tools) ? b.tools : [],
      parallelToolCalls: b.parallel_tool_calls !== false,
      textFormat,
      metadata: isObject(b.metadata) ? b.metadata : {},
    },
  };
}
