// Engine state (pushed by the host), run settings, the model list, load / kill / restart.
import { DEFAULT_RUN_SETTINGS, type EngineState, type ModelRef, type RunSettings } from '../../src-main/shared/api.js';
import { parseSize } from '../../src-main/shared/size.js';
import { getApi } from '../api.js';
import { errorText, type Slice } from './types.js';


export interface EngineSlice {
  engine: EngineState;
  loadFraction: number | null;
  models: ModelRef[];
  settings: RunSettings;
  /** Raw text of the size inputs, kept so that a half-typed size is not lost. */
  ramText: string;
  vramText: string;
  settingsError: string | null;
  engineError: string | null;
  setEngine(state: EngineState): void;
  setLoadFraction(f: number | null): void;
  setSettings(patch: Partial<RunSettings>): void;
  setSizeText(which: 'ram' | 'vram', text: string): void;
  refreshModels(): Promise<void>;
  loadModel(path: string): Promise<void>;
  unloadModel(): Promise<void>;
  killWorker(): Promise<void>;
  restart(): Promise<void>;
}

/** Parses a size field: empty → null (no budget); bad text → an error message. */
export function parseSizeField(text: string): { bytes: number | null; error: string | null } {
  if (text.trim() === '') return { bytes: null, error: null };
  try {
    const bytes = parseSize(text);
    return bytes > 0 ? { bytes, error: null } : { bytes: null, error: 'size must be above zero' };
  } catch (e) {
    return { bytes: null, error: errorText(e) };
  }
}

export const createEngineSlice: Slice<EngineSlice> = (set, get) => ({
  engine: { status: 'idle', model: null, settings: null, lastExit: null, message: null },
  loadFraction: null,
  models: [],
  settings: DEFAULT_RUN_SETTINGS,
  ramText: '',
  vramText: '',
  settingsError: null,
  engineError: null,
  setEngine: (engine) => set(engine.status === 'loading' ? { engine } : { engine, loadFraction: null }),
  setLoadFraction: (loadFraction) => set({ loadFraction }),
  setSettings: (patch) => {
    set({ settings: { ...get().settings, ...patch } });
    get().schedulePlan();
  },
  setSizeText: (which, text) => {
    const r = parseSizeField(text);
    const key = which === 'ram' ? 'ramBytes' : 'vramBytes';
    set(which === 'ram' ? { ramText: text } : { vramText: text });
    set({ settingsError: r.error ? `${which.toUpperCase()}: ${r.error}` : null });
    if (!r.error) get().setSettings({ [key]: r.bytes });
  },
  refreshModels: async () => {
    try {
      set({ models: await getApi().listModels() });
    } catch (e) {
      set({ engineError: errorText(e) });
    }
  },
  loadModel: async (path) => {
    set({ engineError: null, loadFraction: 0 });
    get().clearTelemetry();
    get().resetSpec();
    try {
      await getApi().load(path, get().settings);
      void get().refreshModels();
    } catch (e) {
      set({ engineError: errorText(e) });
    } finally {
      set({ loadFraction: null });
    }
  },
  unloadModel: async () => {
    try {
      await getApi().unload();
    } catch (e) {
      set({ engineError: errorText(e) });
    }
  },
  killWorker: async () => {
    try {
      await getApi().killWorker();
    } catch (e) {
      set({ engineError: errorText(e) });
    }
  },
  restart: async () => {
    set({ engineError: null });
    try {
      get().setEngine(await getApi().restart());
    } catch (e) {
      set({ engineError: errorText(e) });
    }
  },
});
