// One report's identity and outcome, shown above its dashboard and in the reports view.
import type { OpenReport } from '../../store/report-slice.js';

function statusClass(s: string | null): string {
  return s === 'ok' ? 'badge ok' : s ? 'badge bad' : 'badge';
}

export function ReportSummary({ report }: { report: OpenReport }) {
  const r = report.info;
  return (
    <div className="panel" data-testid="report-view" data-report-model={r.modelName ?? ''}>
      <div className="row wrap">
        <strong>{report.label}</strong>
        <span className="dim">{r.modelName ?? 'unknown model'}</span>
        <span className="badge">policy {r.policy ?? '—'}</span>
        <span className={statusClass(r.status)}>
          {r.status ?? 'no outcome'}
          {r.exitCode !== null ? ` · exit ${r.exitCode}` : ''}
        </span>
        {r.schemaVersion !== 1 && <span className="badge warn">schema_version {r.schemaVersion ?? 'missing'}</span>}
        {r.message && <span className="dim">{r.message}</span>}
      </div>
      {r.generation?.text && <div className="dim mono">“{r.generation.text.slice(0, 240)}{r.generation.text.length > 240 ? '…' : ''}”</div>}
    </div>
  );
}
