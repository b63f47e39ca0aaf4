// The OpenAI-compatible API server: its setting (getApiServer/setApiServer) and its live load
// (server-stats events) with a bounded series for the dashboard's chart.
import type { ApiServerOptions, ApiServerState } from '../../src-main/shared/api.js';
import type { ServerStats } from '../../src-main/shared/server-stats.js';
import { getApi } from '../api.js';
import { appendServerPoint, type ServerPoint } from '../lib/server-model.js';
import { errorText, type Slice } from './types.js';

export interface ServerSlice {
  apiServer: ApiServerState | null;
  /** Why the last getApiServer/setApiServer call failed (a refused port, a bad key). */
  apiServerError: string | null;
  apiServerBusy: boolean;
  serverStats: ServerStats | null;
  serverSeries: ServerPoint[];
  /** Page time (ms) of the first stats: the chart's zero. */
  serverT0: number | null;
  refreshApiServer(): Promise<void>;
  applyApiServer(opts: ApiServerOptions): Promise<void>;
  onServerStats(stats: ServerStats, nowMs?: number): void;
}

export const createServerSlice: Slice<ServerSlice> = (set, get) => ({
  apiServer: null,
  apiServerError: null,
  apiServerBusy: false,
  serverStats: null,
  serverSeries: [],
  serverT0: null,
  refreshApiServer: async () => {
    try {
      set({ apiServer: await getApi().getApiServer(), apiServerError: null });
    } catch (e) {
      set({ apiServerError: errorText(e) });
    }
  },
  applyApiServer: async (opts) => {
    set({ apiServerBusy: true, apiServerError: null });
    try {
      const state = await getApi().setApiServer(opts);
      // Stats from before a server was turned off would still show it busy.
      set(state.enabled ? { apiServer: state } : { apiServer: state, serverStats: null });
    } catch (e) {
      set({ apiServerError: errorText(e) });
    } finally {
      set({ apiServerBusy: false });
    }
  },
  onServerStats: (stats, nowMs = Date.now()) => {
    const t0 = get().serverT0 ?? nowMs;
    set({ serverStats: stats, serverT0: t0, serverSeries: appendServerPoint(get().serverSeries, stats, (nowMs - t0) / 1000) });
  },
});
