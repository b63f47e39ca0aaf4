// The RamforgeApi over a WebSocket, in the wire format of src-renderer/WIRE.md (the methods
// a client may call are the API's one list, API_METHODS; anything else is refused):
// request {id, method, params[]} → {id, result} | {id, error:{message, code?}}; events pushed as {event}.
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import { isApiMethod, type RamforgeHostApi } from '../shared/api.js';
import type { AppService } from '../app/service.js';

interface Request {
  id: number;
  method: string;
  params: unknown[];
}

function parseRequest(text: string): Request | { id: number | null; bad: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { id: null, bad: 'request is not JSON' };
  }
  const r = v as Partial<Request>;
  const id = typeof r?.id === 'number' && Number.isSafeInteger(r.id) && r.id > 0 ? r.id : null;
  if (id === null) return { id: null, bad: 'request needs a positive integer id' };
  if (typeof r.method !== 'string') return { id, bad: 'request needs a method' };
  if (r.params !== undefined && !Array.isArray(r.params)) return { id, bad: 'params must be an array' };
  return { id, method: r.method, params: r.params ?? [] };
}

export async function dispatch(service: RamforgeHostApi, method: string, params: unknown[]): Promise<unknown> {
  if (!isApiMethod(method)) throw Object.assign(new Error(`unknown method '${method}'`), { code: 'unknown-method' });
  const m = method;
  if (m === 'inspectUpload') {
    const [name, size, head] = params;
    if (typeof head !== 'string') throw new TypeError('inspectUpload: head must be a base64 string');
    return (service.inspectUpload as (...a: unknown[]) => Promise<unknown>).call(service, name, size, new Uint8Array(Buffer.from(head, 'base64')));
  }
  // The host checks each argument itself (they are untrusted shapes).
  const fn = service[m] as (...a: unknown[]) => Promise<unknown>;
  return (await fn.apply(service, params)) ?? null;
}

/** Requests one socket may have running at once (each may start a child process). */
export const MAX_IN_FLIGHT = 32;
/** Bytes queued for a client that does not read; past this it is cut off (it reconnects and gets the state). */
const MAX_BUFFERED = 64 * 1024 * 1024;

function messageOf(e: unknown): string {
  try {
    const m = (e as { message?: unknown } | null)?.message;
    return typeof m === 'string' ? m : String(e);
  } catch {
    return 'request failed';
  }
}

/** Sends one frame; never throws (a closed socket, an unencodable value, a client that does not read). */
function send(ws: WebSocket, msg: { id?: number | null; [k: string]: unknown }): void {
  if (ws.readyState !== ws.OPEN) return;
  let text: string;
  try {
    text = JSON.stringify(msg);
  } catch (e) {
    // A value JSON cannot hold (a bug on our side): the caller still gets its one answer.
    if (msg.id === undefined) return;
    text = JSON.stringify({ id: msg.id, error: { message: `the answer could not be encoded: ${messageOf(e)}` } });
  }
  if (ws.bufferedAmount + text.length > MAX_BUFFERED) return void ws.terminate();
  ws.send(text, (err) => {
    if (err) ws.terminate();
  });
}

function onRequest(ws: WebSocket, service: AppService, data: RawData, isBinary: boolean, inFlight: { n: number }): void {
  if (isBinary) return send(ws, { id: null, error: { message: 'binary frames are not accepted', code: 'bad-request' } });
  const req = parseRequest(rawText(data));
  if ('bad' in req) return send(ws, { id: req.id, error: { message: req.bad, code: 'bad-request' } });
  if (inFlight.n >= MAX_IN_FLIGHT) return send(ws, { id: req.id, error: { message: `more than ${MAX_IN_FLIGHT} requests at once`, code: 'busy' } });
  inFlight.n++;
  dispatch(service, req.method, req.params)
    .then(
      (result) => send(ws, { id: req.id, result }),
      (e: unknown) => {
        const error: { message: string; code?: string } = { message: messageOf(e) };
        const code = (e as { code?: unknown } | null)?.code;
        if (typeof code === 'string') error.code = code;
        send(ws, { id: req.id, error });
      },
    )
    .finally(() => inFlight.n--)
    .catch(() => {});
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

export function attachApi(wss: WebSocketServer, service: AppService): void {
  wss.on('connection', (ws) => {
    const off = service.onEvent((event) => send(ws, { event }));
    ws.on('close', off);
    ws.on('error', off);
    send(ws, { event: { type: 'state', state: service.getStateSync() } });
    const inFlight = { n: 0 };
    ws.on('message', (data, isBinary) => {
      // A listener that throws would end the server: whatever a client sends is answered or dropped.
      try {
        onRequest(ws, service, data, isBinary, inFlight);
      } catch (e) {
        send(ws, { id: null, error: { message: messageOf(e), code: 'bad-request' } });
      }
    });
  });
}
