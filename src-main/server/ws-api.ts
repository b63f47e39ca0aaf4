// The RamforgeApi over a WebSocket, in the wire format of src-renderer/WIRE.md:
// request {id, method, params[]} → {id, result} | {id, error:{message, code?}}; events pushed as {event}.
import type { WebSocket, WebSocketServer } from 'ws';
import type { AppService } from '../app/service.js';

/** Methods a client may call; anything else is refused. */
export const WS_METHODS = [
  'listModels',
  'inspect',
  'inspectUpload',
  'plan',
  'discoverModels',
  'setModelFolders',
  'pullModel',
  'cancelPull',
  'load',
  'unload',
  'generate',
  'stop',
  'killWorker',
  'restart',
  'comparePolicies',
  'exportReport',
  'getState',
  'listConversations',
  'saveConversation',
  'lastReport',
] as const;
export type WsMethod = (typeof WS_METHODS)[number];

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

export async function dispatch(service: AppService, method: string, params: unknown[]): Promise<unknown> {
  if (!(WS_METHODS as readonly string[]).includes(method)) throw Object.assign(new Error(`unknown method '${method}'`), { code: 'unknown-method' });
  const m = method as WsMethod;
  if (m === 'inspectUpload') {
    const [name, size, head] = params;
    if (typeof head !== 'string') throw new TypeError('inspectUpload: head must be a base64 string');
    return service.inspectUpload(name, size, new Uint8Array(Buffer.from(head, 'base64')));
  }
  const fn = service[m] as (...a: unknown[]) => Promise<unknown>;
  return (await fn.apply(service, params)) ?? null;
}

function send(ws: WebSocket, msg: unknown): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
}

export function attachApi(wss: WebSocketServer, service: AppService): void {
  wss.on('connection', (ws) => {
    const off = service.onEvent((event) => send(ws, { event }));
    ws.on('close', off);
    ws.on('error', off);
    send(ws, { event: { type: 'state', state: service.getStateSync() } });
    ws.on('message', (data, isBinary) => {
      if (isBinary) return send(ws, { id: null, error: { message: 'binary frames are not accepted' } });
      const req = parseRequest(data.toString());
      if ('bad' in req) return send(ws, { id: req.id, error: { message: req.bad, code: 'bad-request' } });
      dispatch(service, req.method, req.params).then(
        (result) => send(ws, { id: req.id, result }),
        (e: unknown) => {
          const err = e as Error & { code?: unknown };
          const error: { message: string; code?: string } = { message: err?.message ?? String(e) };
          if (typeof err?.code === 'string') error.code = err.code;
          send(ws, { id: req.id, error });
        },
      );
    });
  });
}
