import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiEvent } from '../src-main/shared/api.js';
import { createWsClient, toBase64, uploadFile, type SocketLike } from './ws-client.js';

class FakeSocket implements SocketLike {
  readyState = 0;
  sent: { id: number; method: string; params: unknown[] }[] = [];
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  constructor(readonly url: string) {}
  send(data: string): void {
    this.sent.push(JSON.parse(data) as { id: number; method: string; params: unknown[] });
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  receive(msg: unknown): void {
    this.onmessage?.({ data: JSON.stringify(msg) });
  }
  close(): void {
    this.readyState = 3;
    this.onclose?.({});
  }
}

function setup() {
  const sockets: FakeSocket[] = [];
  const api = createWsClient({
    url: 'ws://host/api',
    makeSocket: (u) => {
      const s = new FakeSocket(u);
      sockets.push(s);
      return s;
    },
    connectTimeoutMs: 1000,
  });
  return { api, sockets };
}

afterEach(() => vi.useRealTimers());

describe('browser-mode WebSocket client', () => {
  it('sends {id, method, params} and resolves with the matching result', async () => {
    const { api, sockets } = setup();
    const s = sockets[0]!;
    expect(s.url).toBe('ws://host/api');
    s.open();
    const p = api.plan('/m.gguf', { ctx: 512 } as never);
    expect(s.sent).toEqual([{ id: 1, method: 'plan', params: ['/m.gguf', { ctx: 512 }] }]);
    s.receive({ id: 1, result: { verdict: 'fits' } });
    await expect(p).resolves.toEqual({ verdict: 'fits' });
  });

  it('rejects with the server error message and code', async () => {
    const { api, sockets } = setup();
    sockets[0]!.open();
    const p = api.inspect('/bad.gguf');
    sockets[0]!.receive({ id: 1, error: { message: 'bad magic (at byte offset 0)', code: 'BAD_MAGIC' } });
    await expect(p).rejects.toMatchObject({ message: 'bad magic (at byte offset 0)', code: 'BAD_MAGIC' });
  });

  it('queues calls made before the socket opens', async () => {
    const { api, sockets } = setup();
    const p = api.getState();
    expect(sockets[0]!.sent).toEqual([]);
    sockets[0]!.open();
    expect(sockets[0]!.sent.map((m) => m.method)).toEqual(['getState']);
    sockets[0]!.receive({ id: 1, result: null });
    await expect(p).resolves.toBeNull();
  });

  it('fails a queued call when no connection comes', async () => {
    vi.useFakeTimers();
    const { api } = setup();
    const p = api.listModels();
    vi.advanceTimersByTime(1001);
    await expect(p).rejects.toThrow(/no connection/);
  });

  it('delivers pushed events to listeners until they unsubscribe', () => {
    const { api, sockets } = setup();
    sockets[0]!.open();
    const got: ApiEvent[] = [];
    const off = api.onEvent((e) => got.push(e));
    sockets[0]!.receive({ event: { type: 'load-progress', fraction: 0.5 } });
    off();
    sockets[0]!.receive({ event: { type: 'load-progress', fraction: 1 } });
    expect(got).toEqual([{ type: 'load-progress', fraction: 0.5 }]);
  });

  it('rejects in-flight calls when the socket drops, then reconnects', async () => {
    vi.useFakeTimers();
    const { api, sockets } = setup();
    sockets[0]!.open();
    const p = api.generate('r1', [], {} as never, 5);
    sockets[0]!.close();
    await expect(p).rejects.toThrow(/lost/);
    vi.advanceTimersByTime(300);
    expect(sockets).toHaveLength(2);
  });

  it('sends inspectUpload head bytes as base64', () => {
    const { api, sockets } = setup();
    sockets[0]!.open();
    void api.inspectUpload('m.gguf', 10, new Uint8Array([0x47, 0x47, 0x55, 0x46]));
    expect(sockets[0]!.sent[0]!.params).toEqual(['m.gguf', 10, 'R0dVRg==']);
    expect(toBase64(new Uint8Array(70_000)).length).toBe(Math.ceil(70_000 / 3) * 4);
  });
});

describe('uploadFile', () => {
  it('PUTs the file to /upload and returns the server path', async () => {
    const fetchFn = vi.fn(async () => new Response(JSON.stringify({ path: '/data/uploads/m.gguf' }), { status: 200 }));
    const file = new File([new Uint8Array([1, 2, 3])], 'my model.gguf');
    await expect(uploadFile(file, fetchFn as unknown as typeof fetch)).resolves.toBe('/data/uploads/m.gguf');
    const [url, init] = fetchFn.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/upload?name=my%20model.gguf');
    expect(init.method).toBe('PUT');
  });
  it('throws the server error message', async () => {
    const fetchFn = async () => new Response(JSON.stringify({ error: 'file too large' }), { status: 413 });
    await expect(uploadFile(new File(['x'], 'a.gguf'), fetchFn as unknown as typeof fetch)).rejects.toThrow('file too large');
  });
});
