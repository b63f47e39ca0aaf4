// Reports: the current run's (from the host), saved ones opened from files, the dashboard's
// source, the comparison selection and policy-comparison runs.
import type { PolicyName } from '../../src-main/shared/worker-protocol.js';
import { getApi } from '../api.js';
import { normalizeReport, type ReportInfo } from '../lib/report-model.js';
import { errorText, newId, type Slice } from './types.js';

export interface OpenReport {
  id: string;
  label: string;
  /** The policy the run was asked for (comparison runs), else the report's own. */
  policy: string | null;
  info: ReportInfo;
}

export interface CompareRun {
  requestId: string;
  policies: PolicyName[];
  tokens: Record<string, number>;
}

export interface ReportSlice {
  lastReport: OpenReport | null;
  reports: OpenReport[];
  /** 'live' or the id of an open report. */
  dashboardSource: string;
  compareIds: string[];
  compareRun: CompareRun | null;
  reportError: string | null;
  fetchLastReport(): Promise<void>;
  addReport(raw: unknown, label: string, policy?: string): OpenReport;
  openReportFile(file: File): Promise<OpenReport | null>;
  exportReport(): Promise<void>;
  setDashboardSource(id: string): void;
  toggleCompare(id: string): void;
  runComparison(policies: PolicyName[], prompt: string, maxTokens: number): Promise<void>;
  countCompareToken(policy: string): void;
}

export const createReportSlice: Slice<ReportSlice> = (set, get) => ({
  lastReport: null,
  reports: [],
  dashboardSource: 'live',
  compareIds: [],
  compareRun: null,
  reportError: null,
  fetchLastReport: async () => {
    try {
      const raw = await getApi().lastReport();
      if (raw == null) {
        set({ lastReport: null });
        return;
      }
      const info = normalizeReport(raw);
      set({ lastReport: { id: 'last', label: 'current run', policy: info.policy, info } });
    } catch (e) {
      set({ reportError: errorText(e) });
    }
  },
  addReport: (raw, label, policy) => {
    const info = normalizeReport(raw);
    const r: OpenReport = { id: newId('report'), label, policy: policy ?? info.policy, info };
    set({ reports: [...get().reports, r] });
    return r;
  },
  openReportFile: async (file) => {
    try {
      const raw: unknown = JSON.parse(await file.text());
      const r = get().addReport(raw, file.name);
      set({ dashboardSource: r.id, reportError: null, tab: 'dashboard' });
      return r;
    } catch (e) {
      set({ reportError: `${file.name}: ${errorText(e)}` });
      return null;
    }
  },
  exportReport: async () => {
    const src = get().dashboardSource;
    const r = src === 'live' ? get().lastReport : (get().reports.find((x) => x.id === src) ?? get().lastReport);
    if (!r) {
      set({ reportError: 'no report yet: finish a generation first, or open a report file' });
      return;
    }
    try {
      const saved = await getApi().exportReport(r.info.raw);
      if (saved) get().notify('info', `report saved: ${saved}`);
    } catch (e) {
      set({ reportError: errorText(e) });
    }
  },
  setDashboardSource: (dashboardSource) => set({ dashboardSource }),
  countCompareToken: (policy) => {
    const run = get().compareRun;
    if (run) set({ compareRun: { ...run, tokens: { ...run.tokens, [policy]: (run.tokens[policy] ?? 0) + 1 } } });
  },
  toggleCompare: (id) => {
    const ids = get().compareIds;
    set({ compareIds: ids.includes(id) ? ids.filter((x) => x !== id) : [...ids, id] });
  },
  runComparison: async (policies, prompt, maxTokens) => {
    const path = get().engine.model?.path ?? get().modelPath;
    if (!path) {
      set({ reportError: 'open or load a model first' });
      return;
    }
    if (policies.length < 1 || !prompt.trim()) {
      set({ reportError: 'choose at least one policy and write a prompt' });
      return;
    }
    const requestId = newId('cmp');
    set({ compareRun: { requestId, policies, tokens: {} }, reportError: null });
    get().clearTelemetry();
    try {
      const raws = await getApi().comparePolicies(requestId, path, get().settings, policies, prompt, maxTokens);
      const added = raws.map((raw, i) => get().addReport(raw, policies[i] ?? `run ${i + 1}`, policies[i]));
      set({ compareIds: added.map((r) => r.id) });
    } catch (e) {
      set({ reportError: errorText(e) });
    } finally {
      set({ compareRun: null });
    }
  },
});
