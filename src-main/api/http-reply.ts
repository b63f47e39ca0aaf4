// Writing answers: JSON with its length, errors in OpenAI's shape. Never throws (a socket that
// is already gone is simply not written to).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody, type ApiError } from './errors.js';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  try {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  } catch {
    res.destroy();
  }
}

/** How an error is written: OpenAI's `{error: {...}}` unless a route speaks another API (Ollama's `{error: "..."}`). */
export type ErrorShape = (e: ApiError) => object;

/** An error answer (a stream already under way cannot change its status: it is cut off). */
export function sendError(res: ServerResponse, e: ApiError, headers: Record<string, string> = {}, shape: ErrorShape = errorBody): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, e.status, shape(e), headers);
}

/** How long, and how many bytes, the rest of a refused request's body is read and dropped. */
export const LINGER_MS = 3000;
export const LINGER_BYTES = 64 * 1024 * 1024;

/**
 * Before a refusal that left the body unread (too large, no key, wrong route): the rest is read
 * and dropped first, within bounds, then `answer` runs. A socket closed with unread bytes makes
 * the kernel reset the connection, and the client loses the answer it had not yet read — the
 * 413 for a 10 MB prompt was lost that way. `complete` is false when the client went on past
 * the bounds (or went away): the answer then goes out and the connection closes.
 */
export function drainRequest(req: IncomingMessage, answer: (complete: boolean) => void): void {
  if (req.complete || req.readableEnded) return answer(true);
  let bytes = 0;
  let settled = false;
  const settle = (complete: boolean): void => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    answer(complete);
  };
  const timer = setTimeout(() => settle(false), LINGER_MS);
  req.on('data', (c: Buffer) => {
    bytes += c.length;
    if (bytes > LINGER_BYTES) settle(false);
  });
  req.once('end', () => settle(true));
  req.once('close', () => settle(req.complete));
  req.once('error', () => settle(false));
  req.resume();
}
