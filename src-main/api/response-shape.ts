// Answers and stream chunks in OpenAI's shapes (chat.completion, chat.completion.chunk,
// text_completion), plus the `ramforge` key clients ignore. Pure: ids and times come in.
import type { StopReason } from '../shared/worker-protocol.js';
import type { ApiKind } from './request-types.js';

export type FinishReason = 'stop' | 'length' | 'tool_calls';

/** One call in an answer (message.tool_calls), in OpenAI's shape. */
export interface ToolCallOut {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A stream's piece of a call: the first carries id, type and name, the next the arguments. */
export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** What RAMforge adds to each answer (under `ramforge`; OpenAI clients ignore it). */
export interface RamforgeExtras {
  /** The residency policy the model runs under (stream, off, …). */
  policy: string | null;
  /** Sequences the model was loaded with (requests decoded together). */
  sequences: number;
  /** Storage bytes the worker read while this request ran, per token generated in that time by every request. */
  bytes_read_per_token: number | null;
  /** Tokens generated per weight pass while this request ran (1 without batching). */
  tokens_per_pass: number | null;
  prompt_ms: number;
  ttft_ms: number;
  decode_tok_s: number;
}

export interface ResponseMeta {
  id: string;
  /** Unix seconds. */
  created: number;
  model: string;
  systemFingerprint: string;
}

export function usageOf(promptTokens: number, completionTokens: number): Usage {
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}

/** OpenAI's finish_reason: `stop` for the end of text or a stop string, `length` for a limit reached. */
export function finishReasonOf(stopReason: StopReason): 'stop' | 'length' {
  return stopReason === 'max_tokens' || stopReason === 'ctx_full' ? 'length' : 'stop';
}

/** `toolCalls`: chat only; with calls, `text` may be null (no content besides them). */
/** `logprobs`: the choice's log-probabilities in the kind's shape (logprobs-shape.ts), null when not asked for. */
export function completionObject(kind: ApiKind, meta: ResponseMeta, text: string | null, finish: FinishReason, usage: Usage, extras: RamforgeExtras, toolCalls: ToolCallOut[] = [], logprobs: object | null = null): object {
  const head = { id: meta.id, object: kind === 'chat' ? 'chat.completion' : 'text_completion', created: meta.created, model: meta.model, system_fingerprint: meta.systemFingerprint };
  const choice =
    kind === 'chat'
      ? { index: 0, message: { role: 'assistant', content: text, refusal: null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) }, logprobs, finish_reason: finish }
      : { index: 0, text, logprobs, finish_reason: finish };
  return { ...head, choices: [choice], usage, ramforge: extras };
}

/**
 * One stream chunk. Chat: the first carries the role, the last an empty delta and the finish
 * reason. Text: each carries its piece of text. With include_usage every chunk has `usage: null`
 * until the last one (usageChunk).
 */
export function chunkObject(kind: ApiKind, meta: ResponseMeta, piece: { role?: true; text?: string; finish?: FinishReason; toolCalls?: ToolCallDelta[]; logprobs?: object }, includeUsage: boolean): object {
  const head = { id: meta.id, object: kind === 'chat' ? 'chat.completion.chunk' : 'text_completion', created: meta.created, model: meta.model, system_fingerprint: meta.systemFingerprint };
  const finish = piece.finish ?? null;
  let choice: object;
  if (kind === 'chat') {
    const delta: { role?: 'assistant'; content?: string; tool_calls?: ToolCallDelta[] } = {};
    if (piece.role) delta.role = 'assistant';
    if (piece.text !== undefined || piece.role) delta.content = piece.text ?? '';
    if (piece.toolCalls) delta.tool_calls = piece.toolCalls;
    choice = { index: 0, delta, logprobs: piece.logprobs ?? null, finish_reason: finish };
  } else {
    choice = { index: 0, text: piece.text ?? '', logprobs: piece.logprobs ?? null, finish_reason: finish };
  }
  return includeUsage ? { ...head, choices: [choice], usage: null } : { ...head, choices: [choice] };
}

/** The chunk after the finish (stream_options.include_usage): no choices, the counts, our extras. */
export function usageChunk(kind: ApiKind, meta: ResponseMeta, usage: Usage, extras: RamforgeExtras): object {
  const head = { id: meta.id, object: kind === 'chat' ? 'chat.completion.chunk' : 'text_completion', created: meta.created, model: meta.model, system_fingerprint: meta.systemFingerprint };
  return { ...head, choices: [], usage, ramforge: extras };
}
