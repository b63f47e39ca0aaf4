// The API's one method list against every side that carries it: the host (AppService), the
// WebSocket dispatcher, the Electron IPC handler, the preload, the browser client and the
// renderer's test fake. A method added to RamforgeApi and missed on any side fails here (and,
// for the interface itself, at compile time: see MatchesApi below).
import { describe, expect, it, vi } from 'vitest';

const exposed: Record<string, unknown>[] = [];
const handlers = new Map<string, (...a: unknown[]) => Promise<unknown>>();
const ipcRenderer = { invoke: vi.fn(async () => 'ok'), on: vi.fn(), removeListener: vi.fn() };
vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (_k: string, v: Record<string, unknown>) => exposed.push(v) },
  ipcRenderer,
  webUtils: { getPathForFile: () => null },
  ipcMain: { handle: (ch: string, h: (...a: unknown[]) => Promise<unknown>) => handlers.set(ch, h), removeHandler: (ch: string) => handlers.delete(ch) },
  dialog: { showSaveDialog: vi.fn(async () => ({ canceled: true })) },
}));

const { API_METHODS, IPC_CALL_CHANNEL, isApiMethod } = await import('./api.js');
type Api = typeof import('./api.js');
await import('../../src-preload/index.js');
const { registerIpc } = await import('../electron/ipc.js');
const { dispatch } = await import('../server/ws-api.js');
const { AppService } = await import('../app/service.js');
const { createWsClient } = await import('../../src-renderer/ws-client.js');
const { fakeApi } = await import('../../src-renderer/store/fake-api.test-util.js');
const { createMockApi } = await import('../../src-renderer/dev/mock-api.js');

/** A host whose every API method records its name and arguments. */
function recordingHost() {
  const calls: [string, unknown[]][] = [];
  const host: Record<string, unknown> = { onEvent: () => () => {}, getStateSync: () => ({}) };
  for (const m of API_METHODS) host[m] = async (...a: unknown[]) => (calls.push([m, a]), m);
  return { host, calls };
}

/** Arguments the wire can carry for a method (inspectUpload's head is base64 on the socket). */
const wireArgs = (m: string): unknown[] => (m === 'inspectUpload' ? ['f.gguf', 1, 'AA=='] : ['a', 2]);

describe('API_METHODS, the one list of API methods', () => {
  it('names each method once and none of the local ones', () => {
    expect(new Set(API_METHODS).size).toBe(API_METHODS.length);
    expect(API_METHODS).not.toContain('onEvent');
    expect(API_METHODS).not.toContain('pathForFile');
    expect(isApiMethod('getState')).toBe(true);
    for (const bad of ['onEvent', 'constructor', '__proto__', 'getStateSync', 'close', 1]) expect(isApiMethod(bad)).toBe(false);
  });

  it('the compile-time check can fail: a list missing a method is not the interface', () => {
    // @ts-expect-error a list without 'stop' does not match RamforgeApi
    const missing: import('./api.js').MatchesApi<Exclude<Api['API_METHODS'][number], 'stop'>> = true;
    // @ts-expect-error a list with a method the interface lacks does not match either
    const extra: import('./api.js').MatchesApi<Api['API_METHODS'][number] | 'reboot'> = true;
    expect([missing, extra]).toEqual([true, true]);
  });

  it('AppService implements every method', () => {
    for (const m of API_METHODS) expect(typeof (AppService.prototype as unknown as Record<string, unknown>)[m], m).toBe('function');
  });

  it('the WebSocket dispatcher reaches every method of the host, and nothing else', async () => {
    const { host, calls } = recordingHost();
    for (const m of API_METHODS) await expect(dispatch(host as never, m, wireArgs(m)), m).resolves.toBe(m);
    expect(calls.map(([m]) => m)).toEqual([...API_METHODS]);
    await expect(dispatch(host as never, 'getStateSync', [])).rejects.toThrow(/unknown method/);
  });

  it('the Electron IPC handler reaches every method of the host', async () => {
    const { host, calls } = recordingHost();
    const mainFrame = { url: 'ramforge://app/index.html', parent: null };
    const win = { webContents: { mainFrame, send: () => {}, isDestroyed: () => false }, isDestroyed: () => false };
    const off = registerIpc(win as never, host as never, ['ramforge://app']);
    const h = handlers.get(IPC_CALL_CHANNEL)!;
    // exportReport shows a save dialog in main (the mocked dialog is cancelled): it answers null.
    for (const m of API_METHODS) await h({ senderFrame: mainFrame }, m, m === 'exportReport' ? [{}] : ['a', 2, new Uint8Array(1)]);
    expect(calls.map(([m]) => m)).toEqual(API_METHODS.filter((m) => m !== 'exportReport'));
    off();
  });

  it('the preload forwards every method over the call channel', async () => {
    const api = exposed[0] as Record<string, (...a: unknown[]) => Promise<unknown>>;
    for (const m of API_METHODS) {
      expect(typeof api[m], m).toBe('function');
      await api[m]!('x');
      expect(ipcRenderer.invoke).toHaveBeenLastCalledWith(IPC_CALL_CHANNEL, m, ['x']);
    }
    expect(Object.keys(api).sort()).toEqual([...API_METHODS, 'onEvent', 'pathForFile'].sort());
  });

  it('the browser client sends every method but exportReport (a local download) over the socket', () => {
    const sent: string[] = [];
    const api = createWsClient({
      url: 'ws://h/api',
      makeSocket: () => ({ readyState: 1, send: (d: string) => void sent.push((JSON.parse(d) as { method: string }).method), close() {}, onopen: null, onmessage: null, onclose: null, onerror: null }),
    }) as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
    for (const m of API_METHODS) {
      if (m === 'exportReport') continue;
      void api[m]!(...(m === 'inspectUpload' ? ['f', 1, new Uint8Array(1)] : [])).catch(() => {});
    }
    expect(sent).toEqual(API_METHODS.filter((m) => m !== 'exportReport'));
    expect(typeof api.exportReport).toBe('function');
  });

  it('the renderer test fake and the dev mock have every method', () => {
    const fake = fakeApi() as unknown as Record<string, unknown>;
    const mock = createMockApi() as unknown as Record<string, unknown>;
    for (const m of API_METHODS) {
      expect(typeof fake[m], `fake ${m}`).toBe('function');
      expect(typeof mock[m], `mock ${m}`).toBe('function');
    }
  });
});
