// The Responses API's answers in OpenAI's shapes: the `response` object (output items: an
// assistant `message` with one `output_text` part, `function_call` items), and its streamed
// events (`response.created` … `response.completed`), each a server-sent event named by its type
// and numbered by `sequence_number`. Pure: ids and times come in.
import { errorBody, type ApiError } from './errors.js';
import type { RamforgeExtras, ToolCallOut, Usage } from './response-shape.js';
import type { ResponsesEcho } from './responses-request.js';

export interface ResponseIds {
  /** resp_… */
  id: string;
  /** msg_…: the assistant message item. */
  messageId: string;
  /** Unix seconds. */
  createdAt: number;
  model: string;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete';

export interface MessageItem {
  type: 'message';
  id: string;
  status: 'in_progress' | 'completed';
  role: 'assistant';
  content: { type: 'output_text'; text: string; annotations: never[]; logprobs: never[] }[];
}

export interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: 'in_progress' | 'completed';
}

export type OutputItem = MessageItem | FunctionCallItem;

export const textPart = (text: string) => ({ type: 'output_text' as const, text, annotations: [] as never[], logprobs: [] as never[] });

export function messageItem(id: string, text: string | null, status: MessageItem['status']): MessageItem {
  return { type: 'message', id, status, role: 'assistant', content: text === null ? [] : [textPart(text)] };
}

export function functionCallItem(c: ToolCallOut, status: FunctionCallItem['status']): FunctionCallItem {
  return { type: 'function_call', id: `fc_${c.id.slice('call_'.length)}`, call_id: c.id, name: c.function.name, arguments: status === 'completed' ? c.function.arguments : '', status };
}

export function responseUsage(u: Usage): object {
  return { input_tokens: u.prompt_tokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: u.completion_tokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: u.total_tokens };
}

/** The `response` object; `usage` and `extras` once it is done. */
export function responseObject(ids: ResponseIds, echo: ResponsesEcho, status: ResponseStatus, output: OutputItem[], usage: Usage | null, extras?: RamforgeExtras): object {
  return {
    id: ids.id,
    object: 'response',
    created_at: ids.createdAt,
    status,
    background: false,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    instructions: echo.instructions,
    max_output_tokens: echo.maxOutputTokens,
    model: ids.model,
    output,
    parallel_tool_calls: echo.parallelToolCalls,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: echo.temperature,
    text: { format: echo.textFormat },
    tool_choice: echo.toolChoice,
    tools: echo.tools,
    top_p: echo.topP,
    truncation: 'disabled',
    usage: usage === null ? null : responseUsage(usage),
    metadata: echo.metadata,
    ...(extras ? { ramforge: extras } : {}),
  };
}

/** Numbers a stream's events and writes each as `event: TYPE` with its JSON. */
export class ResponseEvents {
  private seq = 0;

  event(type: string, fields: object): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.seq++, ...fields })}\n\n`;
  }

  /** An error after the stream began: OpenAI's `error` event, with the error object clients throw from. */
  error(e: ApiError): string {
    const { error } = errorBody(e);
    return this.event('error', { code: error.code, message: error.message, param: error.param, error });
  }
}
