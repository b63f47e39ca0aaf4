// Models found on this machine (Ollama, LM Studio, Hugging Face, llama.cpp, added folders),
// each planned for the current RAM budget; refreshed when the budget changes or the host says
// a watched folder changed. A pasted model URL opens like a file: its header is read remotely
// and the usual inspection and plan panels show it.
import { getApi } from '../api.js';
import { normalizeDiscovery, type DiscoveryInfo } from '../lib/discovery-model.js';
import { isModelUrl } from '../../src-main/shared/remote/model-url.js';
import { errorText, type Slice } from './types.js';

export interface PullState {
  state: 'running' | 'done' | 'failed';
  file: string | null;
  done: number;
  total: number | null;
  rate: number | null;
  /** The error, or where the download was saved. */
  message: string | null;
  /** The first downloaded file (the one to open), when done. */
  path: string | null;
}

export interface DiscoverySlice {
  discovered: DiscoveryInfo | null;
  /** Downloads started here, by URL. */
  pulls: Record<string, PullState>;
  discovering: boolean;
  discoveryError: string | null;
  refreshDiscovered(): Promise<void>;
  scheduleDiscovery(): void;
  setModelFolders(paths: string[]): Promise<void>;
  /** Opens an http(s) model URL in the inspect view (plan before download). */
  openModelUrl(url: string): Promise<void>;
  /** Downloads a model URL into RAMforge's models folder (listed under "RAMforge" when done). */
  pullModel(url: string): Promise<void>;
  cancelPull(url: string): Promise<void>;
  onPullProgress(p: { url: string; file: string; done: number; total: number | null; rate: number | null }): void;
}

let seq = 0;
let timer: ReturnType<typeof setTimeout> | null = null;

export const createDiscoverySlice: Slice<DiscoverySlice> = (set, get) => ({
  discovered: null,
  pulls: {},
  discovering: false,
  discoveryError: null,
  refreshDiscovered: async () => {
    const mine = ++seq;
    set({ discovering: true });
    try {
      const raw = await getApi().discoverModels(get().settings.ramBytes);
      if (mine === seq) set({ discovered: normalizeDiscovery(raw), discoveryError: null, discovering: false });
    } catch (e) {
      if (mine === seq) set({ discoveryError: errorText(e), discovering: false });
    }
  },
  scheduleDiscovery: () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      void get().refreshDiscovered();
    }, 300);
  },
  setModelFolders: async (paths) => {
    try {
      await getApi().setModelFolders(paths);
      await get().refreshDiscovered();
    } catch (e) {
      set({ discoveryError: errorText(e) });
    }
  },
  pullModel: async (url) => {
    const patch = (p: Partial<PullState>) => set({ pulls: { ...get().pulls, [url]: { ...(get().pulls[url] as PullState), ...p } } });
    set({ pulls: { ...get().pulls, [url]: { state: 'running', file: null, done: 0, total: null, rate: null, message: null, path: null } } });
    try {
      const doc = await getApi().pullModel(url, get().settings.ramBytes);
      const files = Array.isArray((doc as { files?: unknown })?.files) ? ((doc as { files: { path?: unknown }[] }).files) : [];
      const path = typeof files[0]?.path === 'string' ? files[0].path : null;
      patch({ state: 'done', message: path ? `Saved ${path}` : 'Downloaded', path });
      await get().refreshDiscovered();
    } catch (e) {
      patch({ state: 'failed', message: errorText(e) });
    }
  },
  cancelPull: async (url) => {
    await getApi().cancelPull(url);
  },
  onPullProgress: (p) => {
    const cur = get().pulls[p.url];
    if (!cur || cur.state !== 'running') return;
    set({ pulls: { ...get().pulls, [p.url]: { ...cur, file: p.file, done: p.done, total: p.total, rate: p.rate } } });
  },
  openModelUrl: async (url) => {
    const u = url.trim();
    if (!isModelUrl(u)) {
      get().notify('error', `not an http(s) URL: ${u}`);
      return;
    }
    await get().openModel(u, u.split('?')[0]?.split('/').pop() || u);
  },
});
