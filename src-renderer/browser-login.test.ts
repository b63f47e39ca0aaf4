import { describe, expect, it, vi } from 'vitest';
import { login, takeCode, type LoginEnv } from './browser-login.js';
import { createWsClient, uploadFile, type SocketLike } from './ws-client.js';

function env(search: string, stored: string | null, answer: () => Response | Promise<Response>): LoginEnv & { url: () => string; saved: Map<string, string>; fetchFn: ReturnType<typeof vi.fn> } {
  const loc = { search, pathname: '/chat', hash: '#x' };
  let url = `${loc.pathname}${search}${loc.hash}`;
  const saved = new Map<string, string>(stored ? [['ramforge.credential', stored]] : []);
  const fetchFn = vi.fn(async () => answer());
  return {
    location: loc,
    history: { state: null, replaceState: (_s: unknown, _t: string, u?: string | URL | null) => void (url = String(u)) },
    storage: { getItem: (k) => saved.get(k) ?? null, setItem: (k, v) => void saved.set(k, v) },
    fetchFn: fetchFn as unknown as typeof fetch & ReturnType<typeof vi.fn>,
    url: () => url,
    saved,
  };
}

const ok = (credential: string) => () => new Response(JSON.stringify({ credential }), { status: 200 });
const used = () => new Response(JSON.stringify({ error: 'this login address was already used or has expired' }), { status: 403 });

describe('browser login', () => {
  it('takes the code out of the address at once, keeping the rest of it', () => {
    const e = env('?code=abc&view=chat', null, ok('c'));
    expect(takeCode(e)).toBe('abc');
    expect(e.url()).toBe('/chat?view=chat#x');
  });

  it('trades the code for a credential kept in sessionStorage, and sends the code only in a POST body', async () => {
    const e = env('?code=abc', null, ok('cred-1'));
    const p = login(e);
    expect(e.url()).toBe('/chat#x'); // gone before any answer came back
    await expect(p).resolves.toEqual({ credential: 'cred-1' });
    expect(e.saved.get('ramforge.credential')).toBe('cred-1');
    const [path, init] = e.fetchFn.mock.calls[0] as [string, RequestInit];
    expect(path).toBe('/login');
    expect(init.method).toBe('POST');
    expect(JSON.parse(String(init.body))).toEqual({ code: 'abc' });
  });

  it('a reload (no code) uses the credential this tab holds; none at all says what to do', async () => {
    await expect(login(env('', 'cred-old', ok('x')))).resolves.toEqual({ credential: 'cred-old' });
    const none = await login(env('', null, ok('x')));
    expect(none.credential).toBeNull();
    expect((none as { reason: string }).reason).toMatch(/ramforge serve/);
  });

  it('a spent code says so, unless the tab is already logged in', async () => {
    const r = await login(env('?code=spent', null, used));
    expect((r as { reason: string }).reason).toMatch(/already used/);
    await expect(login(env('?code=spent', 'cred-old', used))).resolves.toEqual({ credential: 'cred-old' });
  });
});

describe('the credential on the wire', () => {
  it('goes in the WebSocket subprotocol list, never in the URL', async () => {
    const made: { url: string; protocols: string[] }[] = [];
    createWsClient({
      url: 'ws://127.0.0.1:1/api',
      credential: async () => 'cred-1',
      makeSocket: (url, protocols) => {
        made.push({ url, protocols });
        return { readyState: 0, send: () => {}, close: () => {}, onopen: null, onmessage: null, onclose: null, onerror: null } as SocketLike;
      },
    });
    await new Promise((r) => setTimeout(r, 0));
    expect(made).toEqual([{ url: 'ws://127.0.0.1:1/api', protocols: ['ramforge.v1', 'ramforge.auth.cred-1'] }]);
  });

  it('goes in the Authorization header of an upload', async () => {
    const fetchFn = vi.fn(async () => new Response(JSON.stringify({ path: '/u/m.gguf' }), { status: 200 }));
    await uploadFile(new File(['x'], 'm.gguf'), fetchFn as unknown as typeof fetch, 'cred-1');
    const [url, init] = fetchFn.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/upload?name=m.gguf');
    expect((init.headers as Record<string, string>).Authorization).toBe('Bearer cred-1');
  });
});
