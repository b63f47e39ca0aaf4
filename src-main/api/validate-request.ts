// Validation of /v1/chat/completions and /v1/completions bodies. Every parameter of OpenAI's
// API is known here: the ones the server honours are checked and used (a wrong type is a 400);
// the ones it cannot honour are accepted only at their neutral value (a client then gets exactly
// what it asked for, or a 400 saying why not); a few that change nothing about the text
// (penalties, user, metadata) are type-checked and ignored. A parameter OpenAI does not have is
// accepted and ignored, as llama-server and LM Studio do (clients send `cache_prompt`,
// `repetition_penalty`, `chat_template_kwargs`…), and named in the request's `ignored` list,
// which the server sends back in a header and logs, so a misspelt `max_token` is not silently
// misread. Pure.
import { MAX_TOP_LOGPROBS, type ChatMessage, type SamplingParams, type ToolCallMessage } from '../shared/worker-protocol.js';
import { LIMITS } from '../shared/settings/run-settings.js';
import { badRequest } from './errors.js';
import { given, onlyNeutral, optBool, optInt, optNumber, optObject, optString, tokenIds, unknownNames, type Body } from './check-value.js';
import type { ApiGeneration, ApiKind } from './request-types.js';
import { checkGrammarText, checkJsonSchema, checkResponseFormat } from './response-format.js';
import { checkToolRequest } from './tool-request.js';
import { checkLogitBias } from './logit-bias.js';
import { OPENAI_DEFAULTS, RANDOM_SEED, type GenerationDefaults } from './generation-defaults.js';

/** Stop strings a request may give (OpenAI allows 4; llama-server more). */
export const MAX_STOP_STRINGS = 16;
export const MAX_STOP_LENGTH = 1000;
export const MAX_MESSAGES = 10_000;
/** Choices one request may ask for: prompts of a batch times `n`. */
export const MAX_CHOICES = 128;

/** A suffix is text as a prompt is; the body's own limit bounds both. */
const MAX_SUFFIX_CHARS = 16 * 1024 * 1024;

/** llama.cpp sampling extensions that llama-server accepts beside OpenAI's own. */
const EXTENSIONS = ['top_k', 'min_p', 'repeat_penalty', 'grammar', 'json_schema', 'ignore_eos'];

const COMMON = ['model', 'max_tokens', 'temperature', 'top_p', 'seed', 'stop', 'n', 'stream', 'stream_options', 'frequency_penalty', 'presence_penalty', 'logit_bias', 'logprobs', 'user', 'response_format', ...EXTENSIONS];

export const CHAT_PARAMS = new Set([
  ...COMMON,
  'messages',
  'max_completion_tokens',
  'top_logprobs',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'functions',
  'function_call',
  'modalities',
  'audio',
  'prediction',
  'web_search_options',
  'store',
  'metadata',
  'service_tier',
  'reasoning_effort',
  'verbosity',
  'prompt_cache_key',
  'safety_identifier',
]);

export const COMPLETION_PARAMS = new Set([...COMMON, 'prompt', 'echo', 'suffix', 'best_of']);

const isEmptyArray = (v: unknown) => Array.isArray(v) && v.length === 0;

/** The model the client named; null when it named none (the loaded model serves, as llama-server does). */
export function checkModel(b: Body): string | null {
  const m = optString(b, 'model', 1024);
  return m === '' ? null : m;
}

function checkStop(b: Body): string[] {
  const v = b.stop;
  if (!given(v)) return [];
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list)) throw badRequest("'stop' must be a string or an array of strings", 'stop', 'invalid_type');
  if (list.length > MAX_STOP_STRINGS) throw badRequest(`'stop' may hold at most ${MAX_STOP_STRINGS} strings, got ${list.length}`, 'stop', 'invalid_value');
  return list.map((s) => {
    if (typeof s !== 'string') throw badRequest("'stop' must be a string or an array of strings", 'stop', 'invalid_type');
    if (s.length === 0 || s.length > MAX_STOP_LENGTH) throw badRequest(`each stop string must have 1 to ${MAX_STOP_LENGTH} characters`, 'stop', 'invalid_value');
    return s;
  });
}

function checkSeed(b: Body, fallback: number): number {
  const v = b.seed;
  if (!given(v)) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw badRequest("'seed' must be an integer", 'seed', 'invalid_type');
  // -1 is llama-server's "random"; 0xffffffff is the worker's.
  if (v === -1) return RANDOM_SEED;
  if (v < 0 || v >= RANDOM_SEED) throw badRequest(`'seed' must be -1 (random) or an integer from 0 to ${RANDOM_SEED - 1}, got ${v}`, 'seed', 'invalid_value');
  return v;
}

/** The grammar the output must follow: llama-server's `grammar` or `json_schema`, or one made from `response_format`. */
function checkGrammar(b: Body): string | null {
  const gbnf = checkGrammarText(b.grammar, 'grammar');
  const schema = checkJsonSchema(b.json_schema);
  const format = checkResponseFormat(b.response_format);
  if ([gbnf, schema, format].filter((g) => g !== null).length > 1) throw badRequest("give one of 'grammar', 'json_schema' and a JSON 'response_format'", gbnf !== null ? 'grammar' : 'json_schema', 'invalid_value');
  return gbnf ?? schema ?? format;
}

/** The request's samplers; a field it does not set gets the server's default (generation-defaults.ts). */
function checkSampling(b: Body, d: GenerationDefaults['sampling']): SamplingParams {
  const grammar = checkGrammar(b);
  const logitBias = checkLogitBias(b.logit_bias);
  return {
    ...(grammar !== null ? { grammar } : {}),
    ...(logitBias.length > 0 ? { logitBias } : {}),
    ...(optBool(b, 'ignore_eos') ? { ignoreEos: true } : {}),
    temperature: optNumber(b, 'temperature', 0, 2) ?? d.temperature,
    topP: optNumber(b, 'top_p', 0, 1) ?? d.topP,
    topK: optInt(b, 'top_k', LIMITS.topK.min, LIMITS.topK.max) ?? d.topK,
    minP: optNumber(b, 'min_p', 0, 1) ?? d.minP,
    repeatPenalty: optNumber(b, 'repeat_penalty', 0, 10) ?? d.repeatPenalty,
    repeatLastN: d.repeatLastN,
    seed: checkSeed(b, d.seed),
  };
}

const STREAM_OPTIONS = new Set(['include_usage', 'include_obfuscation']);

function checkStreamOptions(b: Body, stream: boolean, ignored: string[]): boolean {
  const o = optObject(b, 'stream_options');
  if (o === null) return false;
  if (!stream) throw badRequest("'stream_options' is only allowed when 'stream' is true", 'stream_options', 'invalid_value');
  ignored.push(...unknownNames(o, STREAM_OPTIONS, 'stream_options.'));
  return optBool(o, 'include_usage') ?? false;
}

/** What both endpoints share. */
function checkCommon(b: Body, kind: ApiKind, maxTokensParam: string | null, known: Set<string>, d: GenerationDefaults): Omit<ApiGeneration, 'messages' | 'prompt' | 'echo' | 'logprobs' | 'suffix'> {
  const ignored = unknownNames(b, known);
  const model = checkModel(b);
  // A text completion may ask for no new token: lm-eval-harness scores a prompt with echo, logprobs and max_tokens 0.
  const max = (p: string) => optInt(b, p, kind === 'completion' ? 0 : 1, LIMITS.maxTokens.max);
  // max_completion_tokens replaces max_tokens in OpenAI's chat API; either is honoured.
  const maxTokens = (maxTokensParam ? max(maxTokensParam) : null) ?? max('max_tokens') ?? d.maxTokens;
  const n = optInt(b, 'n', 1, MAX_CHOICES) ?? 1;
  optNumber(b, 'frequency_penalty', -2, 2);
  optNumber(b, 'presence_penalty', -2, 2);
  optString(b, 'user', 1024);
  const stream = optBool(b, 'stream') ?? false;
  const includeUsage = checkStreamOptions(b, stream, ignored);
  return { kind, model, maxTokens, sampling: checkSampling(b, d.sampling), stop: checkStop(b), stream, includeUsage, ignored, n };
}

function textOfContent(v: unknown, param: string): string {
  if (typeof v === 'string') return v;
  if (!Array.isArray(v)) throw badRequest(`'${param}' must be a string or an array of text parts`, param, 'invalid_type');
  return v
    .map((part: unknown, i) => {
      const p = part as { type?: unknown; text?: unknown } | null;
      if (p === null || typeof p !== 'object' || Array.isArray(p)) throw badRequest(`'${param}[${i}]' must be a content part object`, `${param}[${i}]`, 'invalid_type');
      if (p.type !== 'text') throw badRequest(`'${param}[${i}]': only text parts are supported (got type ${JSON.stringify(p.type)})`, `${param}[${i}]`, 'unsupported_content');
      if (typeof p.text !== 'string') throw badRequest(`'${param}[${i}].text' must be a string`, `${param}[${i}].text`, 'invalid_type');
      return p.text;
    })
    .join('\n');
}

const MESSAGE_FIELDS = new Set(['role', 'content', 'name', 'refusal', 'tool_calls', 'tool_call_id', 'annotations', 'audio', 'function_call']);
/** An assistant's earlier reasoning (llama-server's field), handed to the Jinja templates that render it. */
const ASSISTANT_FIELDS = new Set([...MESSAGE_FIELDS, 'reasoning_content']);
const MAX_REASONING_CHARS = 1 << 22;
const CALL_FIELDS = new Set(['id', 'type', 'function']);
/** Tool calls one assistant message may carry. */
export const MAX_MESSAGE_TOOL_CALLS = 128;

/** An assistant message's tool_calls, as the client got them from an earlier answer. */
function checkToolCalls(v: unknown, at: string): ToolCallMessage[] {
  if (!Array.isArray(v)) throw badRequest(`'${at}' must be an array of tool calls`, at, 'invalid_type');
  if (v.length > MAX_MESSAGE_TOOL_CALLS) throw badRequest(`'${at}' may hold at most ${MAX_MESSAGE_TOOL_CALLS} calls`, at, 'invalid_value');
  return v.map((c: unknown, j): ToolCallMessage => {
    const ct = `${at}[${j}]`;
    if (c === null || typeof c !== 'object' || Array.isArray(c)) throw badRequest(`'${ct}' must be an object {"id", "type": "function", "function": {"name", "arguments"}}`, ct, 'invalid_type');
    const o = c as Body;
    for (const k of Object.keys(o)) if (!CALL_FIELDS.has(k)) throw badRequest(`Unrecognized request argument supplied: ${ct}.${k.slice(0, 60)}`, `${ct}.${k.slice(0, 60)}`, 'unknown_parameter');
    if (typeof o.id !== 'string' || o.id.length === 0 || o.id.length > 256) throw badRequest(`'${ct}.id' must be a string of 1 to 256 characters`, `${ct}.id`, 'invalid_value');
    if (o.type !== 'function') throw badRequest(`'${ct}.type' must be "function"`, `${ct}.type`, 'invalid_value');
    const f = o.function as Body | null | undefined;
    if (f === null || typeof f !== 'object' || Array.isArray(f)) throw badRequest(`'${ct}.function' must be an object {"name", "arguments"}`, `${ct}.function`, 'invalid_type');
    for (const k of Object.keys(f)) if (k !== 'name' && k !== 'arguments') throw badRequest(`Unrecognized request argument supplied: ${ct}.function.${k.slice(0, 60)}`, `${ct}.function.${k.slice(0, 60)}`, 'unknown_parameter');
    if (typeof f.name !== 'string' || f.name.length === 0 || f.name.length > 64) throw badRequest(`'${ct}.function.name' must be a string of 1 to 64 characters`, `${ct}.function.name`, 'invalid_value');
    if (typeof f.arguments !== 'string') throw badRequest(`'${ct}.function.arguments' must be a string (the arguments as JSON text)`, `${ct}.function.arguments`, 'invalid_type');
    return { id: o.id, name: f.name, arguments: f.arguments };
  });
}

function checkMessages(b: Body, ignored: string[], allowEmpty: boolean): ChatMessage[] {
  const v = b.messages;
  if (!given(v)) throw badRequest("'messages' is required", 'messages', 'missing_required_parameter');
  if (!Array.isArray(v)) throw badRequest("'messages' must be an array of messages", 'messages', 'invalid_type');
  if (v.length === 0 && !allowEmpty) throw badRequest("'messages' must hold at least one message", 'messages', 'invalid_value');
  if (v.length > MAX_MESSAGES) throw badRequest(`'messages' may hold at most ${MAX_MESSAGES} messages`, 'messages', 'invalid_value');
  return v.map((m: unknown, i): ChatMessage => {
    const at = `messages[${i}]`;
    if (m === null || typeof m !== 'object' || Array.isArray(m)) throw badRequest(`'${at}' must be an object`, at, 'invalid_type');
    const o = m as Body;
    // Fields of other servers' messages (`prefix`…) carry nothing the template renders.
    ignored.push(...unknownNames(o, o.role === 'assistant' ? ASSISTANT_FIELDS : MESSAGE_FIELDS, `${at}.`));
    const reasoning = o.role === 'assistant' ? optString(o, 'reasoning_content', MAX_REASONING_CHARS) : null;
    const said = reasoning ? { reasoningContent: reasoning } : {};
    optString(o, 'name', 256);
    onlyNeutral(o, 'function_call', () => false, "function calls (the deprecated 'functions' API) are not supported: use tools");
    onlyNeutral(o, 'audio', () => false, 'audio is not supported');
    const role = o.role;
    if (role === 'function') throw badRequest(`'${at}.role' function (the deprecated 'functions' API) is not supported: send tool results with role tool`, `${at}.role`, 'unsupported_role');
    if (role !== 'system' && role !== 'developer' && role !== 'user' && role !== 'assistant' && role !== 'tool') {
      throw badRequest(`'${at}.role' must be system, developer, user, assistant or tool`, `${at}.role`, 'invalid_value');
    }
    const toolCalls = given(o.tool_calls) ? checkToolCalls(o.tool_calls, `${at}.tool_calls`) : [];
    if (toolCalls.length > 0 && role !== 'assistant') throw badRequest(`'${at}.tool_calls' belongs to assistant messages`, `${at}.tool_calls`, 'invalid_value');
    if (role === 'tool') {
      if (typeof o.tool_call_id !== 'string' || o.tool_call_id.length === 0 || o.tool_call_id.length > 256) {
        throw badRequest(`'${at}.tool_call_id' is required with role tool: the id of the call this message answers`, `${at}.tool_call_id`, 'missing_required_parameter');
      }
    } else if (given(o.tool_call_id)) throw badRequest(`'${at}.tool_call_id' belongs to tool messages`, `${at}.tool_call_id`, 'invalid_value');
    // An assistant message that calls tools may have no content (OpenAI sends null).
    if (toolCalls.length > 0 && !given(o.content)) return { role: 'assistant', content: '', toolCalls, ...said };
    if (!given(o.content)) throw badRequest(`'${at}.content' is required`, `${at}.content`, 'missing_required_parameter');
    const content = textOfContent(o.content, `${at}.content`);
    if (role === 'tool') return { role, content, toolCallId: o.tool_call_id as string };
    if (toolCalls.length > 0) return { role: 'assistant', content, toolCalls, ...said };
    // The chat templates know system, not OpenAI's newer name for it.
    return { role: role === 'developer' ? 'system' : role, content, ...said };
  });
}

/**
 * `allowEmptyMessages`: no turns at all is a chat too (the template's opening of the assistant's
 * turn alone), as llama-server answers Anthropic's /v1/messages with an empty list; OpenAI's chat
 * refuses it.
 */
export function validateChatRequest(body: unknown, defaults: GenerationDefaults = OPENAI_DEFAULTS, allowEmptyMessages = false): ApiGeneration {
  const b = asBody(body);
  const common = checkCommon(b, 'chat', 'max_completion_tokens', CHAT_PARAMS, defaults);
  const messages = checkMessages(b, common.ignored, allowEmptyMessages);
  const logprobs = checkChatLogprobs(b);
  const tools = checkToolRequest(b);
  onlyNeutral(b, 'functions', isEmptyArray, "the deprecated 'functions' API is not supported: use tools");
  onlyNeutral(b, 'function_call', (v) => v === 'none', "the deprecated 'functions' API is not supported: use tool_choice");
  if (tools?.grammar && common.sampling.grammar !== undefined) {
    throw badRequest("a forced tool call ('tool_choice' required or a function) has a grammar of its own: give no 'grammar' or JSON 'response_format' with it", 'tool_choice', 'invalid_value');
  }
  onlyNeutral(b, 'modalities', (v) => Array.isArray(v) && v.length === 1 && v[0] === 'text', 'only text output');
  onlyNeutral(b, 'audio', () => false, 'only text output');
  onlyNeutral(b, 'prediction', () => false, 'predicted outputs are not used');
  onlyNeutral(b, 'web_search_options', () => false, 'this server does not search the web');
  optBool(b, 'store');
  optObject(b, 'metadata');
  for (const p of ['service_tier', 'reasoning_effort', 'verbosity', 'prompt_cache_key', 'safety_identifier']) optString(b, p, 1024);
  checkChoices(common.n);
  const sampling = tools?.grammar ? { ...common.sampling, grammar: tools.grammar } : common.sampling;
  return { ...common, sampling, messages: reasoningRendered(messages, tools, common.ignored), tools, echo: false, logprobs, suffix: null };
}

/**
 * Reasoning reaches the template only on the Jinja path (tools offered, or tool turns: chatTools
 * in chat-run.ts); llama.cpp's built-in templates take no such field, so there it is named as
 * ignored and dropped.
 */
function reasoningRendered(messages: ChatMessage[], tools: ApiGeneration['tools'], ignored: string[]): ChatMessage[] {
  const jinja = (tools !== null && tools !== undefined && tools.choice !== 'none') || messages.some((m) => m.role === 'tool' || (m.toolCalls?.length ?? 0) > 0);
  if (jinja) return messages;
  return messages.map((m, i) => {
    if (m.reasoningContent === undefined) return m;
    ignored.push(`messages[${i}].reasoning_content`);
    const { reasoningContent: _dropped, ...rest } = m;
    return rest;
  });
}

/** OpenAI chat's `logprobs: true` and `top_logprobs: 0..20` (which needs logprobs true). */
function checkChatLogprobs(b: Body): number | null {
  const on = optBool(b, 'logprobs') ?? false;
  const top = optInt(b, 'top_logprobs', 0, MAX_TOP_LOGPROBS);
  if (top !== null && top > 0 && !on) throw badRequest("'top_logprobs' needs 'logprobs': true", 'top_logprobs', 'invalid_value');
  return on ? (top ?? 0) : null;
}

/**
 * The prompts: a string, token ids (of the model's own vocabulary), or a batch of either (each
 * answered with its own choices), as OpenAI's API takes them.
 */
function checkPrompts(b: Body): (string | number[])[] {
  const v = b.prompt;
  if (!given(v)) throw badRequest("'prompt' is required", 'prompt', 'missing_required_parameter');
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) {
    if (v.length > 0 && v.every((x) => typeof x === 'number')) return [tokenIds(v, 'prompt')];
    if (v.length === 0 || v.length > MAX_CHOICES) throw badRequest(`'prompt' must hold 1 to ${MAX_CHOICES} prompts`, 'prompt', 'invalid_value');
    return v.map((x, i) => {
      if (Array.isArray(x)) return tokenIds(x, `prompt[${i}]`);
      if (typeof x !== 'string') throw badRequest(`'prompt[${i}]' must be a string or an array of token ids`, `prompt[${i}]`, 'invalid_type');
      return x;
    });
  }
  throw badRequest("'prompt' must be a string, token ids, or an array of them", 'prompt', 'invalid_type');
}

/** Several choices (a batch, or n > 1): at most MAX_CHOICES. */
function checkChoices(count: number): void {
  if (count > MAX_CHOICES) throw badRequest(`a request may ask for at most ${MAX_CHOICES} choices (prompts × n), got ${count}`, 'n', 'invalid_value');
}

export function validateCompletionRequest(body: unknown, defaults: GenerationDefaults = OPENAI_DEFAULTS): ApiGeneration {
  const b = asBody(body);
  const common = checkCommon(b, 'completion', null, COMPLETION_PARAMS, defaults);
  const prompts = checkPrompts(b);
  checkChoices(prompts.length * common.n);
  const first = prompts[0] as string | number[];
  const echo = optBool(b, 'echo') ?? false;
  if (echo && prompts.some((p) => typeof p !== 'string')) throw badRequest("'echo' repeats the prompt's text: send the prompt as text", 'echo', 'unsupported_parameter');
  const logprobs = b.logprobs === null ? null : optInt(b, 'logprobs', 0, MAX_TOP_LOGPROBS);
  const suffix = optString(b, 'suffix', MAX_SUFFIX_CHARS);
  if (suffix && typeof first !== 'string') throw badRequest("'suffix' fills in the middle of a text prompt: send the prompt as text", 'suffix', 'unsupported_parameter');
  if (suffix && (prompts.length > 1 || common.n > 1)) throw badRequest("'suffix' fills in one middle: send one prompt and 'n': 1", 'suffix', 'unsupported_parameter');
  if (echo && logprobs !== null && common.stream) throw badRequest("the echoed prompt's log-probabilities come once the prompt is decoded: send 'stream': false with 'echo' and 'logprobs'", 'stream', 'unsupported_parameter');
  if (suffix && echo) throw badRequest("'echo' and 'suffix' do not go together (the answer is the middle)", 'echo', 'unsupported_parameter');
  onlyNeutral(b, 'best_of', (v) => v === 1, 'one candidate per request');
  return { ...common, ...(typeof first === 'string' ? { prompt: first } : { promptTokens: first }), prompts, echo, logprobs, suffix: suffix || null };
}

function asBody(v: unknown): Body {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw badRequest('the request body must be a JSON object', null, 'invalid_body');
  return v as Body;
}
