// The IPC handler with a mocked Electron: untrusted senders are refused before any call runs.
import { describe, it, expect, vi } from 'vitest';

const handlers = new Map<string, (...a: unknown[]) => Promise<unknown>>();
vi.mock('electron', () => ({
  ipcMain: { handle: (ch: string, h: (...a: unknown[]) => Promise<unknown>) => handlers.set(ch, h), removeHandler: (ch: string) => handlers.delete(ch) },
  dialog: { showSaveDialog: vi.fn() },
}));

const { registerIpc } = await import('./ipc.js');
const { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL } = await import('../shared/api.js');

describe('registerIpc', () => {
  const mainFrame = { url: 'ramforge://app/index.html', parent: null };
  const sent: unknown[] = [];
  const win = { webContents: { mainFrame, send: (ch: string, e: unknown) => sent.push([ch, e]), isDestroyed: () => false }, isDestroyed: () => false };
  let listener: ((e: unknown) => void) | null = null;
  const service = {
    getState: vi.fn(async () => ({ status: 'idle' })),
    onEvent: (l: (e: unknown) => void) => ((listener = l), () => (listener = null)),
  };
  const off = registerIpc(win as never, service as never, ['ramforge://app']);
  const h = handlers.get(IPC_CALL_CHANNEL) as (...a: unknown[]) => Promise<unknown>;

  it('serves the app frame and refuses any other frame without calling the service', async () => {
    await expect(h({ senderFrame: mainFrame }, 'getState', [])).resolves.toEqual({ status: 'idle' });
    expect(service.getState).toHaveBeenCalledTimes(1);
    await expect(h({ senderFrame: { url: 'https://evil.example/', parent: null } }, 'getState', [])).rejects.toThrow(/untrusted/);
    await expect(h({ senderFrame: null }, 'getState', [])).rejects.toThrow(/untrusted/);
    expect(service.getState).toHaveBeenCalledTimes(1);
  });

  it('refuses methods outside the API', async () => {
    await expect(h({ senderFrame: mainFrame }, 'constructor', [])).rejects.toThrow(/unknown method/);
    await expect(h({ senderFrame: mainFrame }, 'onEvent', [])).rejects.toThrow(/unknown method/);
  });

  it('pushes service events to the window and unregisters cleanly', () => {
    listener?.({ type: 'load-progress', fraction: 0.5 });
    expect(sent).toEqual([[IPC_EVENT_CHANNEL, { type: 'load-progress', fraction: 0.5 }]]);
    off();
    expect(handlers.has(IPC_CALL_CHANNEL)).toBe(false);
    expect(listener).toBeNull();
  });
});
