// Reads a JSON request body with hard limits: its size (a 413 as soon as it is exceeded, before
// it is all read), a client that stops sending (408 after `idleMs` without a byte) or trickles
// (408 after `totalMs`), bytes that are not UTF-8 or JSON (400). The Content-Type is not
// required (every `curl -d` in Ollama's documentation sends form-encoded): a body is JSON when it
// parses as JSON. Another site's page cannot use that to reach a loopback server: its requests
// carry an Origin, refused unless --cors names it (http-access.ts). A client that goes away
// rejects with ClientGone (nobody is left to answer).
import type { IncomingMessage } from 'node:http';
import { ApiError, badRequest } from './errors.js';

export interface BodyLimits {
  maxBytes: number;
  idleMs: number;
  totalMs: number;
}

/** 4 MiB: more than any context a model here holds (a token is several bytes), far less than memory. */
export const DEFAULT_BODY_LIMITS: BodyLimits = { maxBytes: 4 * 1024 * 1024, idleMs: 10_000, totalMs: 30_000 };

export class ClientGone extends Error {
  constructor() {
    super('the client closed the connection');
  }
}

const tooLarge = (max: number) => new ApiError(413, 'invalid_request_error', `the request body is larger than ${max} bytes`, 'request_too_large');
const tooSlow = (why: string) => new ApiError(408, 'invalid_request_error', `the request body did not arrive in time (${why})`, 'request_timeout');

export function readJsonBody(req: IncomingMessage, limits: BodyLimits): Promise<unknown> {
  const len = req.headers['content-length'];
  if (len !== undefined && (!/^\d{1,16}$/.test(len) || Number(len) > limits.maxBytes)) return Promise.reject(tooLarge(limits.maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    let idle: ReturnType<typeof setTimeout>;
    const total = setTimeout(() => finish(tooSlow(`${limits.totalMs / 1000} s for the whole body`)), limits.totalMs);
    const armIdle = (): void => {
      clearTimeout(idle);
      idle = setTimeout(() => finish(tooSlow(`nothing for ${limits.idleMs / 1000} s`)), limits.idleMs);
    };
    const finish = (err: Error | null, body?: Buffer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(idle);
      clearTimeout(total);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('close', onClose);
      if (err) {
        // The rest is not read: the answer goes out and the connection closes.
        req.pause();
        reject(err);
        return;
      }
      try {
        resolve(parse(body as Buffer));
      } catch (e) {
        reject(e);
      }
    };
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size > limits.maxBytes) return finish(tooLarge(limits.maxBytes));
      chunks.push(c);
      armIdle();
    };
    const onEnd = (): void => finish(null, Buffer.concat(chunks));
    const onGone = (): void => finish(new ClientGone());
    const onClose = (): void => {
      if (!req.complete) finish(new ClientGone());
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onGone);
    req.on('close', onClose);
    armIdle();
  });
}

/**
 * A request nests a few levels (messages, content parts); JSON.parse of a body nested a million
 * deep holds the event loop for seconds, so depth is counted first, in one pass.
 */
export const MAX_NESTING = 32;

export function nestedDeeper(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

function parse(body: Buffer): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw badRequest('the request body is not UTF-8 text', null, 'invalid_encoding');
  }
  if (text.trim() === '') throw badRequest('the request body is empty: send a JSON object', null, 'invalid_json');
  if (nestedDeeper(text, MAX_NESTING)) throw badRequest(`the request body nests JSON deeper than ${MAX_NESTING} levels`, null, 'invalid_json');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`the request body is not valid JSON: ${(e as Error).message.slice(0, 200)}`, null, 'invalid_json');
  }
}
