// Reports: the current run's and those opened from files; export, open, view, compare.
import { formatBytesPerTok, formatMs, formatTokS } from '../../lib/format.js';
import { compareRow } from '../../lib/compare.js';
import { useStore } from '../../store/index.js';
import type { OpenReport } from '../../store/report-slice.js';
import { Empty } from '../Empty.js';
import { ReportActions } from '../ReportActions.js';
import { useSelectedReport } from '../use-dashboard.js';
import { ReportSummary } from './ReportSummary.js';

export function ReportsView() {
  const last = useStore((s) => s.lastReport);
  const reports = useStore((s) => s.reports);
  const selected = useSelectedReport();
  const all: OpenReport[] = last ? [last, ...reports] : reports;
  return (
    <div data-testid="reports-view">
      <div className="view-head">
        <h2>Reports</h2>
        <span className="grow" />
        <ReportActions />
      </div>
      {selected && <ReportSummary report={selected} />}
      {all.length === 0 ? (
        <Empty text="No reports yet. Finish a generation, or open / drop a report .json." />
      ) : (
        <div className="panel">
          <table className="t">
            <thead>
              <tr>
                <th>report</th>
                <th>model</th>
                <th>policy</th>
                <th>outcome</th>
                <th className="num">decode</th>
                <th className="num">TTFT</th>
                <th className="num">read/token</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {all.map((r) => (
                <ReportRow key={r.id} report={r} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

function ReportRow({ report }: { report: OpenReport }) {
  const setSource = useStore((s) => s.setDashboardSource);
  const setTab = useStore((s) => s.setTab);
  const toggle = useStore((s) => s.toggleCompare);
  const addReport = useStore((s) => s.addReport);
  const inCompare = useStore((s) => s.compareIds.includes(report.id));
  const row = compareRow(report.info, report.label);
  const saved = report.id !== 'last';
  return (
    <tr>
      <td>{report.label}</td>
      <td className="dim">{report.info.modelName ?? '—'}</td>
      <td>{report.policy ?? '—'}</td>
      <td>{report.info.status ?? '—'}</td>
      <td className="num">{formatTokS(row.tokS)}</td>
      <td className="num">{formatMs(row.ttftMs)}</td>
      <td className="num">{formatBytesPerTok(row.bytesPerToken)}</td>
      <td className="row">
        <button className="btn small" onClick={() => { setSource(saved ? report.id : 'live'); setTab('dashboard'); }}>
          Dashboard
        </button>
        {saved ? (
          <button className="btn small" onClick={() => toggle(report.id)}>
            {inCompare ? 'Uncompare' : 'Compare'}
          </button>
        ) : (
          <button className="btn small" title="Keep a copy of this run's report for comparison" onClick={() => toggle(addReport(report.info.raw, `run ${new Date().toLocaleTimeString()}`).id)}>
            Keep & compare
          </button>
        )}
      </td>
    </tr>
  );
}
