// The preload: the one typed object the renderer sees (window.ramforge). It forwards calls over a
// single IPC channel and never exposes ipcRenderer, Node or Electron objects themselves.
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL, forwardingApi, type ApiEvent, type RamforgeApi } from '../src-main/shared/api.js';

const api = {
  // One forwarder per method of the API's one list; only the two local methods are written here.
  ...forwardingApi((method, params) => ipcRenderer.invoke(IPC_CALL_CHANNEL, method, params) as Promise<unknown>),
  pathForFile: (file: File): string | null => {
    try {
      return webUtils.getPathForFile(file) || null;
    } catch {
      return null;
    }
  },
  onEvent: (listener: (e: ApiEvent) => void): (() => void) => {
    const h = (_e: IpcRendererEvent, ev: ApiEvent): void => listener(ev);
    ipcRenderer.on(IPC_EVENT_CHANNEL, h);
    return () => void ipcRenderer.removeListener(IPC_EVENT_CHANNEL, h);
  },
} satisfies RamforgeApi;

export type Api = typeof api;

declare global {
  interface Window {
    ramforge?: Api;
  }
}

contextBridge.exposeInMainWorld('ramforge', api);
