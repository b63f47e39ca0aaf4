// The app API over Electron IPC: one invoke channel for calls, one channel for pushed events.
// Every call's sender frame is checked before anything runs.
import { dialog, ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL } from '../shared/api.js';
import type { AppService } from '../app/service.js';
import { writeJsonAtomic } from '../node/atomic-write.js';
import { dispatch } from '../server/ws-api.js';
import { isTrustedSender } from './guards.js';

async function exportWithDialog(win: BrowserWindow, report: unknown): Promise<string | null> {
  if (report === null || typeof report !== 'object') throw new TypeError('report must be an object');
  const r = await dialog.showSaveDialog(win, {
    title: 'Export report',
    defaultPath: join(homedir(), `ramforge-report-${new Date().toISOString().replace(/[:.]/g, '-')}.json`),
    filters: [{ name: 'RAMforge report', extensions: ['json'] }],
  });
  if (r.canceled || !r.filePath) return null;
  await writeJsonAtomic(r.filePath, report);
  return r.filePath;
}

export function registerIpc(win: BrowserWindow, service: AppService, allowedOrigins: readonly string[]): () => void {
  const handler = async (event: IpcMainInvokeEvent, method: unknown, params: unknown): Promise<unknown> => {
    if (!isTrustedSender(event.senderFrame, win.webContents.mainFrame, allowedOrigins)) {
      throw new Error('refused: IPC from an untrusted frame');
    }
    if (typeof method !== 'string') throw new TypeError('method must be a string');
    const args = Array.isArray(params) ? params : [];
    if (method === 'exportReport') return exportWithDialog(win, args[0]);
    if (method === 'inspectUpload') {
      const [name, size, head] = args;
      return service.inspectUpload(name, size, head instanceof Uint8Array ? head : null);
    }
    return dispatch(service, method, args);
  };
  ipcMain.handle(IPC_CALL_CHANNEL, handler);
  const off = service.onEvent((e) => {
    if (!win.isDestroyed() && !win.webContents.isDestroyed()) win.webContents.send(IPC_EVENT_CHANNEL, e);
  });
  return () => {
    off();
    ipcMain.removeHandler(IPC_CALL_CHANNEL);
  };
}
