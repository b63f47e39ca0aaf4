// One report's identity and outcome, shown above its dashboard and in the reports view.
import { formatBytes } from '../../lib/format.js';
import type { OpenReport } from '../../store/report-slice.js';

function statusClass(s: string | null): string {
  return s === 'ok' ? 'badge ok' : s ? 'badge bad' : 'badge';
}

/** The shape the run had: with auto settings, ctx, micro-batch and threads were chosen for the cap. */
function shapeText(r: OpenReport['info']): string | null {
  const { ctx, batch, threads, ramBytes, enforceRam } = r.shape;
  const parts = [ctx !== null ? `ctx ${ctx}` : null, batch !== null ? `batch ${batch}` : null, threads !== null ? `${threads} threads` : null, ramBytes !== null ? `${enforceRam ? 'cap' : 'budget'} ${formatBytes(ramBytes)}` : null];
  const text = parts.filter((p) => p !== null).join(' · ');
  return text || null;
}

export function ReportSummary({ report }: { report: OpenReport }) {
  const r = report.info;
  const shape = shapeText(r);
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
        {shape && <span className="dim mono">{shape}</span>}
        {r.message && <span className="dim">{r.message}</span>}
      </div>
      {r.generation?.text && <div className="dim mono">“{r.generation.text.slice(0, 240)}{r.generation.text.length > 240 ? '…' : ''}”</div>}
    </div>
  );
}
