// Validation of Ollama's /api/chat, /api/generate and /api/show bodies, with Ollama's field
// names. What the server honours is checked and used (tools and tool turns on /api/chat:
// ollama-tools.ts); what it cannot do (images, thinking, custom templates, token contexts) is
// accepted only at its neutral value, so a client
// gets what it asked for or a 400 saying why not; a field Ollama does not have is accepted and
// ignored, as Ollama does, and named in the request's `ignored` list (a header and a log line).
// Pure.
import type { ApiSamplingDefaults } from '../shared/api-defaults.js';
import { MAX_TOP_LOGPROBS, type ChatMessage } from '../shared/worker-protocol.js';
import { badRequest } from './errors.js';
import { given, onlyNeutral, optBool, optInt, optString, unknownNames, type Body } from './check-value.js';
import { checkOllamaOptions, type OllamaOptions } from './ollama-options.js';
import { checkOllamaFormat } from './response-format.js';
import { MAX_MESSAGES, checkModel } from './validate-request.js';
import { ollamaMessageCalls } from './ollama-tools.js';
import { checkToolRequest, type ToolRequest } from './tool-request.js';

export type OllamaApi = 'chat' | 'generate';

export interface OllamaRequest extends OllamaOptions {
  api: OllamaApi;
  /** The model the client named (resolved against the loaded one by the handler); null: none named. */
  model: string | null;
  /** Ollama streams unless told `stream: false`. */
  stream: boolean;
  /** chat: the turns; empty = only "load the model" (Ollama answers done_reason "load"). */
  messages: ChatMessage[];
  /** generate: the text; '' = only "load the model". */
  prompt: string;
  /** generate: a system message for the chat template. */
  system: string | null;
  /** generate: the prompt is the model's input as it is, without the chat template. */
  raw: boolean;
  /** Fields and options given that this server does not know or apply: accepted, named back to the client. */
  ignored: string[];
  /** keep_alive 0: unload the model once answered (Ollama's way to free its memory). */
  unload: boolean;
  /** chat: the tools the model may call (null: none declared). */
  tools: ToolRequest | null;
  /** `logprobs: true`: each token's log-probability with `top_logprobs` of the most likely; null: none. */
  logprobs: number | null;
  /** generate: text after the gap, filled in the middle through the model's FIM tokens; null: none. */
  suffix: string | null;
}

const COMMON = ['model', 'stream', 'format', 'options', 'keep_alive', 'think', 'logprobs', 'top_logprobs'];
export const OLLAMA_CHAT_FIELDS = new Set([...COMMON, 'messages', 'tools']);
export const OLLAMA_GENERATE_FIELDS = new Set([...COMMON, 'prompt', 'suffix', 'system', 'template', 'context', 'raw', 'images']);
export const OLLAMA_SHOW_FIELDS = new Set(['model', 'name', 'verbose', 'system', 'template', 'options']);
const MESSAGE_FIELDS = new Set(['role', 'content', 'images', 'tool_calls', 'thinking', 'tool_name']);

const isEmptyArray = (v: unknown) => Array.isArray(v) && v.length === 0;

function asBody(v: unknown): Body {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw badRequest('the request body must be a JSON object', null, 'invalid_body');
  return v as Body;
}


/**
 * Whether `keep_alive` is zero: the model is unloaded once the request is answered, as Ollama
 * does. Any other value is checked and has no effect (the model stays loaded as the server was
 * started, and a request after an unload loads it again).
 */
function checkKeepAlive(b: Body): boolean {
  const v = b.keep_alive;
  if (!given(v)) return false;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw badRequest("'keep_alive' must be a finite number of seconds", 'keep_alive', 'invalid_value');
    return v === 0;
  }
  if (typeof v !== 'string' || v.length > 64) throw badRequest("'keep_alive' must be a duration string (\"5m\") or a number of seconds", 'keep_alive', 'invalid_type');
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*(ns|us|µs|ms|s|m|h)?\s*$/.exec(v);
  if (!m) throw badRequest(`'keep_alive' must be a duration ("5m", "1h", "0") or a number of seconds, got ${JSON.stringify(v.slice(0, 20))}`, 'keep_alive', 'invalid_value');
  return Number(m[1]) === 0;
}

function checkCommon(b: Body, known: Set<string>, server?: ApiSamplingDefaults): { model: string | null; stream: boolean; ignored: string[]; unload: boolean; logprobs: number | null } & OllamaOptions {
  const ignored = unknownNames(b, known);
  const model = checkModel(b);
  const stream = optBool(b, 'stream') ?? true;
  const grammar = checkOllamaFormat(b.format);
  onlyNeutral(b, 'think', (v) => v === false, 'this server does not separate thinking from the answer');
  const logprobs = optBool(b, 'logprobs') ? (optInt(b, 'top_logprobs', 0, MAX_TOP_LOGPROBS) ?? 0) : (optInt(b, 'top_logprobs', 0, MAX_TOP_LOGPROBS), null);
  const unload = checkKeepAlive(b);
  const options = checkOllamaOptions(b.options, ignored, server);
  return { model, stream, ignored, unload, logprobs, ...options, sampling: grammar !== null ? { ...options.sampling, grammar } : options.sampling };
}

function checkMessages(b: Body, ignored: string[]): ChatMessage[] {
  const v = b.messages;
  if (!given(v)) return [];
  if (!Array.isArray(v)) throw badRequest("'messages' must be an array of messages", 'messages', 'invalid_type');
  if (v.length > MAX_MESSAGES) throw badRequest(`'messages' may hold at most ${MAX_MESSAGES} messages`, 'messages', 'invalid_value');
  return v.map((m: unknown, i): ChatMessage => {
    const at = `messages[${i}]`;
    if (m === null || typeof m !== 'object' || Array.isArray(m)) throw badRequest(`'${at}' must be an object`, at, 'invalid_type');
    const o = m as Body;
    ignored.push(...unknownNames(o, MESSAGE_FIELDS, `${at}.`));
    onlyNeutral(o, 'images', isEmptyArray, 'images are not supported (text models only)');
    // An earlier turn's reasoning: the templates here have no place for it, and it is dropped.
    optString(o, 'thinking', 1 << 22);
    const toolName = optString(o, 'tool_name', 256);
    const role = o.role;
    if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') throw badRequest(`'${at}.role' must be system, user, assistant or tool`, `${at}.role`, 'invalid_value');
    const calls = given(o.tool_calls) ? ollamaMessageCalls(o.tool_calls, `${at}.tool_calls`) : [];
    if (calls.length > 0 && role !== 'assistant') throw badRequest(`'${at}.tool_calls' belongs to assistant messages`, `${at}.tool_calls`, 'invalid_value');
    const content = o.content ?? (calls.length > 0 ? '' : undefined);
    if (!given(content)) throw badRequest(`'${at}.content' is required`, `${at}.content`, 'missing_required_parameter');
    if (typeof content !== 'string') throw badRequest(`'${at}.content' must be a string`, `${at}.content`, 'invalid_type');
    // Ollama's tool turns carry the tool's name, not a call id: the templates render the result alone.
    if (role === 'tool') return { role, content, toolCallId: toolName || `call_${i}` };
    return calls.length > 0 ? { role: 'assistant', content, toolCalls: calls } : { role, content };
  });
}

export function validateOllamaChat(body: unknown, server?: ApiSamplingDefaults): OllamaRequest {
  const b = asBody(body);
  const common = checkCommon(b, OLLAMA_CHAT_FIELDS, server);
  // Ollama has no tool_choice: the model may call or answer (its `auto`).
  const tools = checkToolRequest({ tools: b.tools });
  return { api: 'chat', ...common, messages: checkMessages(b, common.ignored), prompt: '', system: null, raw: false, tools, suffix: null };
}

export function validateOllamaGenerate(body: unknown, server?: ApiSamplingDefaults): OllamaRequest {
  const b = asBody(body);
  const common = checkCommon(b, OLLAMA_GENERATE_FIELDS, server);
  const prompt = optString(b, 'prompt', 1 << 22) ?? '';
  const system = optString(b, 'system', 1 << 22);
  const raw = optBool(b, 'raw') ?? false;
  const suffix = optString(b, 'suffix', 1 << 22);
  onlyNeutral(b, 'template', (v) => v === '', "the model's own chat template is used (custom templates are not supported)");
  onlyNeutral(b, 'context', isEmptyArray, "token contexts are not supported: send the conversation as text, or use /api/chat");
  onlyNeutral(b, 'images', isEmptyArray, 'images are not supported (text models only)');
  if (raw && system !== null && system !== '') throw badRequest("'system' has no effect with 'raw': true (the prompt is used as it is)", 'system', 'invalid_value');
  return { api: 'generate', ...common, messages: [], prompt, system: system === '' ? null : system, raw, tools: null, suffix: suffix || null };
}

/** /api/show: the model's name (`model`, or `name` as older clients send it; null: the loaded one). */
export function validateOllamaShow(body: unknown): { model: string | null; ignored: string[] } {
  const b = asBody(body);
  const ignored = unknownNames(b, OLLAMA_SHOW_FIELDS);
  optBool(b, 'verbose');
  optString(b, 'system', 1 << 22);
  optString(b, 'template', 1 << 22);
  checkOllamaOptions(b.options, ignored);
  return { model: given(b.model) ? checkModel(b) : checkModel({ model: b.name }), ignored };
}
