// The dashboard's data for the selected source (live stream or one open report).
import { useMemo } from 'react';
import { liveDashboard, reportDashboard, type DashboardData } from '../lib/dashboard-model.js';
import type { OpenReport } from '../store/report-slice.js';
import { useStore } from '../store/index.js';

export function useSelectedReport(): OpenReport | null {
  const source = useStore((s) => s.dashboardSource);
  const reports = useStore((s) => s.reports);
  return useMemo(() => reports.find((r) => r.id === source) ?? null, [reports, source]);
}

export function useDashboardData(): { data: DashboardData; report: OpenReport | null } {
  const selected = useSelectedReport();
  const plan = useStore((s) => s.plan);
  const samples = useStore((s) => s.samples);
  const ticks = useStore((s) => s.cgroupTicks);
  const last = useStore((s) => s.lastReport);
  const engine = useStore((s) => s.engine);
  const routing = useStore((s) => s.routing);
  const data = useMemo(
    () => (selected ? reportDashboard(selected.info) : liveDashboard(plan, samples, ticks, last?.info ?? null, engine, routing)),
    [selected, plan, samples, ticks, last, engine, routing],
  );
  return { data, report: selected ?? last };
}
