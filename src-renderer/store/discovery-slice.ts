// Models found on this machine (Ollama, LM Studio, Hugging Face, llama.cpp, added folders),
// each planned for the current RAM budget; refreshed when the budget changes or the host says
// a watched folder changed. A pasted model URL opens like a file: its header is read remotely
// and the usual inspection and plan panels show it.
import { getApi } from '../api.js';
import { normalizeDiscovery, type DiscoveryInfo } from '../lib/discovery-model.js';
import { isModelUrl } from '../../src-main/shared/remote/model-url.js';
import { errorText, type Slice } from './types.js';

export interface DiscoverySlice {
  discovered: DiscoveryInfo | null;
  discovering: boolean;
  discoveryError: string | null;
  refreshDiscovered(): Promise<void>;
  scheduleDiscovery(): void;
  setModelFolders(paths: string[]): Promise<void>;
  /** Opens an http(s) model URL in the inspect view (plan before download). */
  openModelUrl(url: string): Promise<void>;
}

let seq = 0;
let timer: ReturnType<typeof setTimeout> | null = null;

export const createDiscoverySlice: Slice<DiscoverySlice> = (set, get) => ({
  discovered: null,
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
  openModelUrl: async (url) => {
    const u = url.trim();
    if (!isModelUrl(u)) {
      get().notify('error', `not an http(s) URL: ${u}`);
      return;
    }
    await get().openModel(u, u.split('?')[0]?.split('/').pop() || u);
  },
});
