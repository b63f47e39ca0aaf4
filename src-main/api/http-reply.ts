// Writing answers: JSON with its length, errors in OpenAI's shape. Never throws (a socket that
// is already gone is simply not written to).
import type { ServerResponse } from 'node:http';
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

/**
 * An error answer. `bodyRead` false: the request's body was not read to its end (refused before
 * reading, too large, too slow), so the connection closes rather than read what nobody wants.
 */
export function sendError(res: ServerResponse, e: ApiError, bodyRead: boolean, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    // A stream already under way ends; it cannot change its status any more.
    res.destroy();
    return;
  }
  sendJson(res, e.status, errorBody(e), bodyRead ? headers : { connection: 'close', ...headers });
}
