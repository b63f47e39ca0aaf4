// Memory ledger by category with each figure's provenance; unknowns say why. Below it, the
// reconciliation differences (e.g. RSS − mapping resident, cgroup − RSS), signed.
import type { ActionRow, LedgerRow, ReconRow } from '../../lib/report-model.js';
import { formatBytes } from '../../lib/format.js';
import { Empty } from '../Empty.js';

export function LedgerTable({ rows, reconciliation, actions = [] }: { rows: LedgerRow[]; reconciliation: ReconRow[]; actions?: ActionRow[] }) {
  return (
    <div data-testid="ledger">
      {rows.length === 0 ? (
        <Empty text="No ledger yet — it comes with the report of a finished generation." />
      ) : (
        <div className="scroll">
          <table className="t">
            <thead>
              <tr>
                <th>category</th>
                <th className="num">bytes</th>
                <th>provenance</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                <tr key={`${r.category}-${i}`}>
                  <td>{r.category}</td>
                  <td className="num">{r.bytes === null ? <span className="faint">unknown</span> : formatBytes(r.bytes)}</td>
                  <td className="dim">{r.bytes === null ? (r.reason ?? 'no reason given') : (r.provenance ?? '—')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {reconciliation.length > 0 && (
        <table className="t">
          <thead>
            <tr>
              <th>reconciliation</th>
              <th className="num">difference</th>
              <th>how</th>
            </tr>
          </thead>
          <tbody>
            {reconciliation.map((r, i) => (
              <tr key={`${r.name}-${i}`}>
                <td>{r.name}</td>
                <td className={`num ${r.bytes !== null && r.bytes > 0 ? 'pos' : 'neg'}`}>{r.bytes === null ? '—' : `${r.bytes > 0 ? '+' : ''}${formatBytes(r.bytes)}`}</td>
                <td className="dim">{r.detail ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {actions.length > 0 && (
        <table className="t">
          <thead>
            <tr>
              <th>policy action</th>
              <th className="num">count</th>
              <th className="num">requested</th>
              <th className="num">accepted</th>
              <th className="num">observed</th>
            </tr>
          </thead>
          <tbody>
            {actions.map((a) => (
              <tr key={a.kind}>
                <td>{a.kind}</td>
                <td className="num">{a.count ?? '—'}</td>
                <td className="num">{formatBytes(a.requestedBytes)}</td>
                <td className="num">{formatBytes(a.acceptedBytes)}</td>
                <td className="num">{formatBytes(a.observedBytes)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
