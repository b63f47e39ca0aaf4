// Browser-mode implementation of RamforgeApi over one WebSocket (wire format: WIRE.md).
// Calls made while the socket is down wait for the reconnect, then fail after a timeout.
import { forwardingApi, type ApiEvent, type RamforgeApi } from '../src-main/shared/api.js';
import { wsProtocols } from '../src-main/shared/browser-auth.js';
import { downloadJson, reportFileName } from './lib/download.js';

export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

export interface WsClientOptions {
  url: string;
  makeSocket?: (url: string, protocols: string[]) => SocketLike;
  /** Browser mode's login (browser-login.ts): sent in the subprotocol list, never in the URL. */
  credential?: () => Promise<string | null>;
  /** How long a call may wait for a connection (ms). */
  connectTimeoutMs?: number;
  fetchFn?: typeof fetch;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  frame: string;
  sent: boolean;
  timer: ReturnType<typeof setTimeout> | null;
}

const OPEN = 1;

export function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

export class WsConnection {
  private socket: SocketLike | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<(e: ApiEvent) => void>();
  private backoffMs = 250;
  private closed = false;

  constructor(private readonly opts: WsClientOptions) {
    this.connect();
  }

  private connect(): void {
    if (!this.opts.credential) return this.open(null);
    this.opts.credential().then(
      (c) => this.open(c),
      () => this.open(null),
    );
  }

  private open(credential: string | null): void {
    if (this.closed) return;
    const make = this.opts.makeSocket ?? ((u: string, p: string[]) => new WebSocket(u, p) as unknown as SocketLike);
    const s = make(this.opts.url, wsProtocols(credential));
    this.socket = s;
    s.onopen = () => {
      this.backoffMs = 250;
      for (const p of this.pending.values()) if (!p.sent) this.sendFrame(p);
    };
    s.onmessage = (ev) => this.onMessage(ev.data);
    s.onerror = () => {};
    s.onclose = () => {
      for (const [id, p] of this.pending) {
        if (!p.sent) continue;
        this.pending.delete(id);
        if (p.timer) clearTimeout(p.timer);
        p.reject(new Error('connection to the RAMforge server was lost'));
      }
      if (this.closed) return;
      setTimeout(() => this.connect(), this.backoffMs);
      this.backoffMs = Math.min(5000, this.backoffMs * 2);
    };
  }

  private sendFrame(p: Pending): void {
    this.socket!.send(p.frame);
    p.sent = true;
    if (p.timer) clearTimeout(p.timer);
    p.timer = null;
  }

  private onMessage(data: unknown): void {
    let msg: unknown;
    try {
      msg = JSON.parse(String(data));
    } catch {
      return;
    }
    if (typeof msg !== 'object' || msg === null) return;
    const m = msg as { id?: unknown; result?: unknown; error?: { message?: unknown; code?: unknown }; event?: unknown };
    if (m.event !== undefined) {
      for (const l of this.listeners) l(m.event as ApiEvent);
      return;
    }
    if (typeof m.id !== 'number') return;
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.error) {
      const err = new Error(typeof m.error.message === 'string' ? m.error.message : 'request failed') as Error & { code?: string };
      if (typeof m.error.code === 'string') err.code = m.error.code;
      p.reject(err);
    } else {
      p.resolve(m.result ?? null);
    }
  }

  call<T>(method: string, params: unknown[]): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const p: Pending = {
        resolve: resolve as (v: unknown) => void,
        reject,
        frame: JSON.stringify({ id, method, params }),
        sent: false,
        timer: null,
      };
      this.pending.set(id, p);
      if (this.socket?.readyState === OPEN) {
        this.sendFrame(p);
      } else {
        p.timer = setTimeout(() => {
          this.pending.delete(id);
          reject(new Error(`no connection to the RAMforge server (${method})`));
        }, this.opts.connectTimeoutMs ?? 10_000);
      }
    });
  }

  onEvent(listener: (e: ApiEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    this.socket?.close();
  }
}

export function createWsClient(opts: WsClientOptions): RamforgeApi {
  const c = new WsConnection(opts);
  return {
    // One forwarder per method of the API's one list; the two that differ in a browser follow.
    ...forwardingApi((method, params) => c.call(method, params)),
    inspectUpload: (name, size, head) => c.call('inspectUpload', [name, size, toBase64(head)]),
    // The server keeps a copy (durable when the call resolves: a crash after "saved" loses nothing);
    // the browser downloads the file the user asked for.
    exportReport: async (report) => {
      const kept = await c.call('exportReport', [report]);
      const name = reportFileName(modelNameOf(report));
      downloadJson(report, name);
      return typeof kept === 'string' ? `${name} (a copy is kept on the server: ${kept})` : name;
    },
    onEvent: (listener) => c.onEvent(listener),
  };
}

function modelNameOf(report: unknown): string | null {
  const m = (report as { model?: unknown } | null)?.model;
  if (typeof m === 'string') return m;
  const n = (m as { name?: unknown } | null | undefined)?.name;
  return typeof n === 'string' ? n : null;
}

/** Browser mode: upload a dropped/picked model (PUT /upload), answering its server-side path. */
export async function uploadFile(file: File, fetchFn: typeof fetch = fetch, credential: string | null = null): Promise<string> {
  const headers: Record<string, string> = { 'Content-Type': 'application/octet-stream' };
  if (credential) headers.Authorization = `Bearer ${credential}`;
  const res = await fetchFn(`/upload?name=${encodeURIComponent(file.name)}`, {
    method: 'PUT',
    headers,
    body: file,
  });
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    /* not JSON */
  }
  const b = body as { path?: unknown; error?: unknown } | null;
  if (!res.ok || typeof b?.path !== 'string') {
    throw new Error(typeof b?.error === 'string' ? b.error : `upload of ${file.name} failed (HTTP ${res.status})`);
  }
  return b.path;
}
