// The graph-trace manifest of a traced run: node groups in execution order, per layer, with
// the weight tensors each touches and their last use; marked incomplete when truncated.
import { formatBytes } from '../../lib/format.js';
import type { TraceInfo } from '../../lib/trace-model.js';
import { Empty } from '../Empty.js';
import { SourceSelect } from '../ReportActions.js';
import { useDashboardData } from '../use-dashboard.js';

export function TraceView() {
  const { report } = useDashboardData();
  const trace = report?.info.trace ?? null;
  return (
    <div data-testid="trace-view">
      <div className="view-head">
        <h2>Graph trace</h2>
        <SourceSelect />
        {trace && !trace.complete && (
          <span className="badge warn" data-testid="trace-incomplete" title={trace.reason ?? 'events were dropped by the capture bound'}>
            incomplete{trace.droppedEvents ? ` · ${trace.droppedEvents} events dropped` : ''}
          </span>
        )}
        {trace?.complete && <span className="badge ok">complete</span>}
      </div>
      {!report ? (
        <Empty text="No report yet: finish a generation, or open a report file." />
      ) : (
        <div className="panel" data-testid="graph-trace" data-groups={String(trace?.groups.length ?? 0)} data-complete={trace ? String(trace.complete) : ''}>
          {!trace ? <Empty text="This run was not traced (its report has no graph_trace; run with --graph-trace to record one)." /> : <TraceTable trace={trace} />}
        </div>
      )}
    </div>
  );
}

function TraceTable({ trace }: { trace: TraceInfo }) {
  const head = (
    <h4>
      {trace.groups.length} node groups
      {trace.nodeCount !== null && <span className="faint"> · {trace.nodeCount} nodes</span>}
      {trace.eventCount !== null && <span className="faint"> · {trace.eventCount} events</span>}
      {trace.droppedEvents !== null && <span className="faint"> · {trace.droppedEvents} dropped</span>}
      {trace.edges !== null && <span className="faint"> · {trace.edges} edges</span>}
      {!trace.complete && trace.reason && <span className="faint"> · {trace.reason}</span>}
    </h4>
  );
  const note = trace.profileNote && <div className="dim">reuse-aware profile: {trace.profileNote}</div>;
  if (trace.groups.length === 0) {
    return (
      <>
        {head}
        {note}
        <Empty text="The report carries the trace summary only, without the node-group manifest." />
      </>
    );
  }
  return (
    <>
      {head}
      {note}
      <div className="scroll tall">
        <table className="t">
          <thead>
            <tr>
              <th className="num">#</th>
              <th>layer</th>
              <th>phase</th>
              <th>ops</th>
              <th>weight tensors (last use)</th>
            </tr>
          </thead>
          <tbody>
            {trace.groups.map((g) => (
              <tr key={g.order} data-layer={g.layer ?? ''}>
                <td className="num">{g.order}</td>
                <td className="mono">{g.layer === null ? '—' : `blk.${g.layer}`}</td>
                <td className="dim">{g.phase ?? ''}</td>
                <td className="mono dim">
                  {g.nodes} {g.ops.length ? `· ${[...new Set(g.ops)].slice(0, 6).join(', ')}` : ''}
                </td>
                <td className="mono">
                  {g.tensors.length === 0 ? (
                    <span className="faint">—</span>
                  ) : (
                    g.tensors.map((t) => (
                      <div key={t.name}>
                        {t.name}
                        {t.bytes !== null && <span className="faint"> {formatBytes(t.bytes)}</span>}
                        <span className={t.lastUseGroup === g.order ? 'pos' : 'faint'}>
                          {t.lastUseGroup === g.order ? ' · last use' : ` → last use in group #${t.lastUseGroup ?? '?'}`}
                          {t.lastUseNode !== null ? ` (node ${t.lastUseNode})` : ''}
                        </span>
                      </div>
                    ))
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
