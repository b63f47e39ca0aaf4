// Answers in Ollama's shapes: /api/tags and /api/ps entries, /api/show, /api/version, and the
// NDJSON lines of /api/chat and /api/generate (each piece a line with done:false, the last with
// done:true, done_reason and the counts and durations in nanoseconds), errors as
// `{"error": "message"}`. Clients ignore the `ramforge` key. Pure: times come in.
import { createHash } from 'node:crypto';
import type { ModelFacts, ServedModel } from './backend.js';
import type { ApiError } from './errors.js';
import type { OllamaApi } from './ollama-validate.js';
import type { RamforgeExtras } from './response-shape.js';

/** llama.cpp's LLAMA_FTYPE values as Ollama names quantization levels. */
const FILE_TYPES: Record<number, string> = {
  0: 'F32', 1: 'F16', 2: 'Q4_0', 3: 'Q4_1', 7: 'Q8_0', 8: 'Q5_0', 9: 'Q5_1', 10: 'Q2_K', 11: 'Q3_K_S', 12: 'Q3_K_M', 13: 'Q3_K_L',
  14: 'Q4_K_S', 15: 'Q4_K_M', 16: 'Q5_K_S', 17: 'Q5_K_M', 18: 'Q6_K', 19: 'IQ2_XXS', 20: 'IQ2_XS', 21: 'Q2_K_S', 22: 'IQ3_XS',
  23: 'IQ3_XXS', 24: 'IQ1_S', 25: 'IQ4_NL', 26: 'IQ3_S', 27: 'IQ3_M', 28: 'IQ2_S', 29: 'IQ2_M', 30: 'IQ4_XS', 31: 'IQ1_M', 32: 'BF16',
};

export const OLLAMA_NDJSON_HEADERS = { 'content-type': 'application/x-ndjson', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' } as const;

/** Ollama names carry a tag; a bare name means `:latest`. */
export const ollamaName = (m: ServedModel): string => (m.id.includes(':') ? m.id : `${m.id}:latest`);

export function ollamaNamesModel(requested: string, m: ServedModel): boolean {
  const bare = requested.endsWith(':latest') ? requested.slice(0, -':latest'.length) : requested;
  return bare === m.id || m.aliases.includes(bare) || requested === m.id || m.aliases.includes(requested);
}

/** "1.2B", "135M": Ollama's parameter_size. */
export function parameterSize(n: number): string {
  if (!(n > 0)) return 'unknown';
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e8 ? 0 : 1)}M`;
  return `${Math.round(n / 1e3)}K`;
}

const quantization = (f: ModelFacts | undefined): string => (f?.fileType != null ? (FILE_TYPES[f.fileType] ?? `type ${f.fileType}`) : 'unknown');

function details(m: ServedModel): object {
  return { parent_model: '', format: 'gguf', family: m.arch, families: [m.arch], parameter_size: parameterSize(m.facts?.parameterCount ?? 0), quantization_level: quantization(m.facts) };
}

/**
 * Ollama's digest is the hash of the model's blob; hashing a file of many GB per listing is out
 * of the question, so this one identifies the loaded model (its name, size and load time) and
 * changes when another is loaded.
 */
export function modelDigest(m: ServedModel): string {
  return createHash('sha256').update(`${m.id}\0${m.facts?.sizeBytes ?? 0}\0${m.created}`).digest('hex');
}

const iso = (unixSeconds: number): string => new Date(unixSeconds * 1000).toISOString();

/** One entry of /api/tags. */
export function tagEntry(m: ServedModel): object {
  const name = ollamaName(m);
  return { name, model: name, modified_at: iso(m.created), size: m.facts?.sizeBytes ?? 0, digest: modelDigest(m), details: details(m) };
}

/** /api/tags (and /api/ps): the one loaded model, or none. */
export function tagsList(m: ServedModel | null, running = false): object {
  // Running models have no expiry here: the server keeps its model until it stops.
  if (!m) return { models: [] };
  // context_length: what one request gets (the loaded context over the sequences), Ollama's num_ctx.
  return { models: [running ? { ...tagEntry(m), expires_at: '9999-12-31T23:59:59Z', size_vram: 0, context_length: m.ctxPerSequence } : tagEntry(m)] };
}

export function showObject(m: ServedModel): object {
  const f = m.facts;
  const info: Record<string, unknown> = { 'general.architecture': m.arch, 'general.parameter_count': f?.parameterCount ?? 0 };
  if (f) {
    info[`${m.arch}.context_length`] = f.contextLength;
    info[`${m.arch}.block_count`] = f.layers;
  }
  return {
    license: '',
    modelfile: `# served by ramforge\nFROM ${m.id}\n`,
    parameters: '',
    template: f?.chatTemplate ?? '',
    system: '',
    details: details(m),
    model_info: info,
    capabilities: ['completion', 'embedding'],
    modified_at: iso(m.created),
    ramforge: { ctx_per_sequence: m.ctxPerSequence, sequences: m.sequences, policy: m.policy, chat_template: m.hasChatTemplate },
  };
}

export interface OllamaMeta {
  /** The model name the client sent (Ollama echoes it). */
  model: string;
  /** ISO time of the answer. */
  createdAt: string;
}

/** A piece of text: a message delta (chat) or a response piece (generate). */
export function ollamaPiece(api: OllamaApi, meta: OllamaMeta, text: string, toolCalls?: object[]): object {
  const head = { model: meta.model, created_at: meta.createdAt };
  return api === 'chat' ? { ...head, message: { role: 'assistant', content: text, ...(toolCalls ? { tool_calls: toolCalls } : {}) }, done: false } : { ...head, response: text, done: false };
}

export interface OllamaTotals {
  doneReason: 'stop' | 'length' | 'load' | 'unload';
  totalMs: number;
  promptTokens: number;
  promptMs: number;
  evalTokens: number;
  evalMs: number;
}

const ns = (ms: number): number => Math.max(0, Math.round(ms * 1e6));

/** The last line (or the whole answer without streaming, `text` then holding all of it). */
export function ollamaFinal(api: OllamaApi, meta: OllamaMeta, text: string, t: OllamaTotals, extras: RamforgeExtras | null, toolCalls?: object[]): object {
  const head = { model: meta.model, created_at: meta.createdAt };
  const body = api === 'chat' ? { message: { role: 'assistant', content: text, ...(toolCalls && toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) } } : { response: text };
  const counts =
    t.doneReason === 'load' || t.doneReason === 'unload'
      ? {}
      : { total_duration: ns(t.totalMs), load_duration: 0, prompt_eval_count: t.promptTokens, prompt_eval_duration: ns(t.promptMs), eval_count: t.evalTokens, eval_duration: ns(t.evalMs) };
  return { ...head, ...body, done: true, done_reason: t.doneReason, ...counts, ...(extras ? { ramforge: extras } : {}) };
}

export const ollamaErrorBody = (e: ApiError): { error: string } => ({ error: e.message });

export const ndjson = (value: object): string => `${JSON.stringify(value)}\n`;
