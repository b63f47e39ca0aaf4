// The preload with a mocked Electron: it exposes exactly one object, made only of functions that
// forward over the one IPC channel; ipcRenderer itself never crosses the bridge.
import { describe, it, expect, vi } from 'vitest';

const exposed: [string, Record<string, unknown>][] = [];
const ipcRenderer = { invoke: vi.fn(async () => 'ok'), on: vi.fn(), removeListener: vi.fn(), send: vi.fn(), sendSync: vi.fn() };
vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (k: string, v: Record<string, unknown>) => exposed.push([k, v]) },
  ipcRenderer,
  webUtils: { getPathForFile: () => '/home/u/m.gguf' },
}));

await import('../../src-preload/index.js');
const { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL } = await import('../shared/api.js');

describe('preload bridge', () => {
  it('exposes one object, window.ramforge, of plain functions only', () => {
    expect(exposed.map(([k]) => k)).toEqual(['ramforge']);
    const api = exposed[0]?.[1] as Record<string, unknown>;
    for (const [k, v] of Object.entries(api)) {
      expect(typeof v, k).toBe('function');
      expect(v).not.toBe(ipcRenderer);
      expect(Object.values(ipcRenderer)).not.toContain(v);
    }
    expect(Object.keys(api)).not.toContain('ipcRenderer');
    expect(Object.keys(api)).not.toContain('send');
    expect(Object.keys(api)).not.toContain('invoke');
  });

  it('forwards a call over the one call channel with its arguments', async () => {
    const api = exposed[0]?.[1] as { load: (p: string, s: unknown) => Promise<unknown> };
    await api.load('/m.gguf', { ctx: 512 });
    expect(ipcRenderer.invoke).toHaveBeenCalledWith(IPC_CALL_CHANNEL, 'load', ['/m.gguf', { ctx: 512 }]);
  });

  it('subscribes to events on the event channel and can unsubscribe', () => {
    const api = exposed[0]?.[1] as { onEvent: (l: (e: unknown) => void) => () => void };
    const got: unknown[] = [];
    const off = api.onEvent((e) => got.push(e));
    const [[ch, h]] = ipcRenderer.on.mock.calls as unknown as [[string, (ev: unknown, e: unknown) => void]];
    expect(ch).toBe(IPC_EVENT_CHANNEL);
    h({ sender: 'internal' }, { type: 'state' });
    expect(got).toEqual([{ type: 'state' }]); // the IPC event object itself is not handed over
    off();
    expect(ipcRenderer.removeListener).toHaveBeenCalledWith(IPC_EVENT_CHANNEL, h);
  });

  it('gives dropped files their local path', () => {
    const api = exposed[0]?.[1] as { pathForFile: (f: unknown) => string | null };
    expect(api.pathForFile({})).toBe('/home/u/m.gguf');
  });
});
