// Anthropic's Messages API answers: the `message` object (a text block, then `tool_use` blocks),
// its stream's named events (message_start, content_block_start/delta/stop, message_delta,
// message_stop), and errors as `{"type": "error", "error": {"type", "message"}}` — the shape
// Anthropic's clients read. Pure: ids come in.
import type { ApiError } from './errors.js';
import type { FinishReason, RamforgeExtras, ToolCallOut, Usage } from './response-shape.js';

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';

export function stopReasonOf(finish: FinishReason, stopString: string | null): StopReason {
  if (finish === 'tool_calls') return 'tool_use';
  if (finish === 'length') return 'max_tokens';
  return stopString !== null ? 'stop_sequence' : 'end_turn';
}

/** Anthropic's error types for ours (it has no "unavailable": a server that cannot serve now is overloaded). */
const ERROR_TYPES: Record<ApiError['type'], string> = {
  invalid_request_error: 'invalid_request_error',
  exceed_context_size_error: 'invalid_request_error',
  authentication_error: 'authentication_error',
  permission_error: 'permission_error',
  not_found_error: 'not_found_error',
  rate_limit_error: 'rate_limit_error',
  server_error: 'api_error',
  unavailable_error: 'overloaded_error',
  not_supported_error: 'api_error',
};

export function anthropicErrorBody(e: ApiError): object {
  return { type: 'error', error: { type: ERROR_TYPES[e.type], message: e.message } };
}

export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

export function toolUseBlock(c: ToolCallOut): ToolUseBlock {
  return { type: 'tool_use', id: `toolu_${c.id.slice('call_'.length)}`, name: c.function.name, input: JSON.parse(c.function.arguments) as unknown };
}

export function messageUsage(u: Usage): object {
  return { input_tokens: u.prompt_tokens, output_tokens: u.completion_tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

export interface MessageIds {
  /** msg_… */
  id: string;
  model: string;
}

/** The message: at start (no content, no stop reason yet) or whole. */
export function messageObject(ids: MessageIds, content: object[], stop: { reason: StopReason; sequence: string | null } | null, usage: Usage, extras?: RamforgeExtras): object {
  return {
    id: ids.id,
    type: 'message',
    role: 'assistant',
    model: ids.model,
    content,
    stop_reason: stop?.reason ?? null,
    stop_sequence: stop?.sequence ?? null,
    usage: messageUsage(usage),
    ...(extras ? { ramforge: extras } : {}),
  };
}

/** One named server-sent event. */
export const messageEvent = (type: string, fields: object = {}): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
