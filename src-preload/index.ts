// The preload: the one typed object the renderer sees (window.ramforge). It forwards calls over a
// single IPC channel and never exposes ipcRenderer, Node or Electron objects themselves.
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import { IPC_CALL_CHANNEL, IPC_EVENT_CHANNEL, type ApiEvent, type RamforgeApi } from '../src-main/shared/api.js';

function call<T>(method: keyof RamforgeApi, ...params: unknown[]): Promise<T> {
  return ipcRenderer.invoke(IPC_CALL_CHANNEL, method, params) as Promise<T>;
}

const api = {
  listModels: () => call('listModels'),
  inspect: (path) => call('inspect', path),
  inspectUpload: (name, size, head) => call('inspectUpload', name, size, head),
  plan: (path, settings) => call('plan', path, settings),
  discoverModels: (ramBytes) => call('discoverModels', ramBytes),
  setModelFolders: (paths) => call('setModelFolders', paths),
  pullModel: (url, ramBytes) => call('pullModel', url, ramBytes),
  cancelPull: (url) => call('cancelPull', url),
  load: (path, settings) => call('load', path, settings),
  unload: () => call('unload'),
  generate: (requestId, messages, sampling, maxTokens) => call('generate', requestId, messages, sampling, maxTokens),
  stop: () => call('stop'),
  killWorker: () => call('killWorker'),
  restart: () => call('restart'),
  comparePolicies: (requestId, path, settings, policies, prompt, maxTokens) => call('comparePolicies', requestId, path, settings, policies, prompt, maxTokens),
  getState: () => call('getState'),
  listConversations: () => call('listConversations'),
  saveConversation: (c) => call('saveConversation', c),
  lastReport: () => call('lastReport'),
  exportReport: (report) => call('exportReport', report),
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
