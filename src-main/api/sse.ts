// Server-sent events as OpenAI streams them: one `data: <json>` event per chunk, then
// `data: [DONE]`. An error after the stream has begun is one more event holding the error
// object (the status line is already sent), after which the stream ends without [DONE]. Pure.
import { errorBody, type ApiError } from './errors.js';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // Proxies that buffer would hold tokens back.
  'x-accel-buffering': 'no',
} as const;

export const SSE_DONE = 'data: [DONE]\n\n';

export function sseData(value: object): string {
  // JSON.stringify escapes newlines, so one event is always one line.
  return `data: ${JSON.stringify(value)}\n\n`;
}

export function sseError(e: ApiError): string {
  return sseData(errorBody(e));
}
