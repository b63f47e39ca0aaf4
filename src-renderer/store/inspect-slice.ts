// The model being inspected: its header view, its plan for the current settings, and the
// reader's error when the file is bad. A bad file only sets `inspectError`.
import { getApi, pathForDroppedFile } from '../api.js';
import { normalizeInspect, type InspectInfo } from '../lib/inspect-model.js';
import { normalizePlan, type PlanInfo } from '../lib/plan-model.js';
import { errorText, type Slice } from './types.js';

export interface InspectSlice {
  modelPath: string | null;
  modelLabel: string | null;
  inspecting: boolean;
  inspection: InspectInfo | null;
  inspectError: string | null;
  plan: PlanInfo | null;
  planError: string | null;
  planning: boolean;
  openModel(path: string, label?: string): Promise<void>;
  openModelFile(file: File): Promise<void>;
  refreshPlan(): Promise<void>;
  schedulePlan(): void;
}

let planTimer: ReturnType<typeof setTimeout> | null = null;
let planSeq = 0;

export const createInspectSlice: Slice<InspectSlice> = (set, get) => ({
  modelPath: null,
  modelLabel: null,
  inspecting: false,
  inspection: null,
  inspectError: null,
  plan: null,
  planError: null,
  planning: false,
  openModel: async (path, label) => {
    set({
      modelPath: path,
      modelLabel: label ?? path.split(/[\\/]/).pop() ?? path,
      inspecting: true,
      inspection: null,
      inspectError: null,
      plan: null,
      planError: null,
      tab: 'inspect',
    });
    try {
      const raw = await getApi().inspect(path);
      if (get().modelPath !== path) return;
      set({ inspection: normalizeInspect(raw), inspecting: false });
      await get().refreshPlan();
    } catch (e) {
      if (get().modelPath === path) set({ inspectError: errorText(e), inspecting: false });
    }
  },
  openModelFile: async (file) => {
    set({ modelPath: null, modelLabel: file.name, inspecting: true, inspection: null, inspectError: null, plan: null, planError: null, tab: 'inspect' });
    let path: string;
    try {
      path = await pathForDroppedFile(file);
    } catch (e) {
      set({ inspectError: errorText(e), inspecting: false });
      return;
    }
    await get().openModel(path, file.name);
  },
  refreshPlan: async () => {
    const path = get().modelPath;
    if (!path || !get().inspection) return;
    const seq = ++planSeq;
    set({ planning: true });
    try {
      const raw = await getApi().plan(path, get().settings);
      if (seq === planSeq) set({ plan: normalizePlan(raw), planError: null, planning: false });
    } catch (e) {
      if (seq === planSeq) set({ planError: errorText(e), planning: false });
    }
  },
  schedulePlan: () => {
    if (planTimer) clearTimeout(planTimer);
    planTimer = setTimeout(() => {
      planTimer = null;
      void get().refreshPlan();
    }, 200);
  },
});
