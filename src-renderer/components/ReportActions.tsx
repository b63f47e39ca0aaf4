// Export the current report; open a saved one (picker). Used by the dashboard and reports views.
import { useRef } from 'react';
import { useStore } from '../store/index.js';

export function ReportActions() {
  const input = useRef<HTMLInputElement>(null);
  const exportReport = useStore((s) => s.exportReport);
  const openReportFile = useStore((s) => s.openReportFile);
  const hasReport = useStore((s) => s.lastReport !== null || s.dashboardSource !== 'live');
  const reportError = useStore((s) => s.reportError);
  return (
    <>
      <button className="btn" data-testid="export-report" disabled={!hasReport} onClick={() => void exportReport()} title="Save the report as schema-v1 JSON">
        Export report
      </button>
      <button className="btn" data-testid="open-report" onClick={() => input.current?.click()}>
        Open report…
      </button>
      <input
        ref={input}
        className="hidden-input"
        type="file"
        accept=".json,application/json"
        data-testid="open-report-input"
        onChange={(e) => {
          const f = e.currentTarget.files?.[0];
          e.currentTarget.value = '';
          if (f) void openReportFile(f);
        }}
      />
      {reportError && <span className="err-text" data-testid="report-error">{reportError}</span>}
    </>
  );
}

export function SourceSelect() {
  const source = useStore((s) => s.dashboardSource);
  const reports = useStore((s) => s.reports);
  const setSource = useStore((s) => s.setDashboardSource);
  return (
    <select data-testid="dashboard-source" value={source} onChange={(e) => setSource(e.currentTarget.value)}>
      <option value="live">Live (current engine)</option>
      {reports.map((r) => (
        <option key={r.id} value={r.id}>
          Report: {r.label}
        </option>
      ))}
    </select>
  );
}
