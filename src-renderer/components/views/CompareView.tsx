// Compare runs side by side: run one prompt under several policies, or pick saved reports.
import { useMemo, useRef, useState } from 'react';
import { POLICIES, type PolicyName } from '../../../src-main/shared/worker-protocol.js';
import { compareRow, firstDivergence, tokensIdentical } from '../../lib/compare.js';
import { reportDashboard } from '../../lib/dashboard-model.js';
import { formatBytes, formatBytesPerTok, formatCount, formatMs, formatPct, formatTokS } from '../../lib/format.js';
import { useStore } from '../../store/index.js';
import type { OpenReport } from '../../store/report-slice.js';
import { ResidencyHeatmap } from '../charts/ResidencyHeatmap.js';
import { TierHeatmap } from '../charts/TierHeatmap.js';
import { Empty } from '../Empty.js';


export function CompareView() {
  const reports = useStore((s) => s.reports);
  const ids = useStore((s) => s.compareIds);
  const toggle = useStore((s) => s.toggleCompare);
  const addReport = useStore((s) => s.addReport);
  const openInput = useRef<HTMLInputElement>(null);
  const chosen = useMemo(() => ids.map((id) => reports.find((r) => r.id === id)).filter((r): r is OpenReport => !!r), [ids, reports]);
  return (
    <div data-testid="compare-view">
      <div className="view-head">
        <h2>Compare runs</h2>
      </div>
      <div className="grid2">
        <RunForm />
        <div className="panel">
          <h4>
            Saved reports<span className="spacer" />
            <button className="btn small" onClick={() => openInput.current?.click()}>
              Open reports…
            </button>
          </h4>
          <input
            ref={openInput}
            className="hidden-input"
            type="file"
            multiple
            accept=".json,application/json"
            data-testid="compare-open-input"
            onChange={(e) => {
              const files = [...(e.currentTarget.files ?? [])];
              e.currentTarget.value = '';
              void Promise.all(files.map(async (f) => addReport(JSON.parse(await f.text()) as unknown, f.name))).then(
                (added) => useStore.setState({ compareIds: [...useStore.getState().compareIds, ...added.map((r) => r.id)] }),
                (err: unknown) => useStore.setState({ reportError: `could not open report: ${err instanceof Error ? err.message : String(err)}` }),
              );
            }}
          />
          {reports.length === 0 && <div className="faint">No reports open. Open saved report files to compare them.</div>}
          <ul className="list">
            {reports.map((r) => (
              <li key={r.id}>
                <label className="check">
                  <input type="checkbox" checked={ids.includes(r.id)} onChange={() => toggle(r.id)} />
                  {r.label} <span className="faint">{r.info.policy ?? ''}</span>
                </label>
              </li>
            ))}
          </ul>
        </div>
      </div>
      {chosen.length === 0 ? <Empty text="Run a comparison or choose two or more reports." /> : <CompareTable reports={chosen} />}
    </div>
  );
}

function RunForm() {
  const [policies, setPolicies] = useState<PolicyName[]>(['off', 'stream']);
  const [prompt, setPrompt] = useState('Once upon a time');
  const [maxTokens, setMaxTokens] = useState(32);
  const run = useStore((s) => s.compareRun);
  const path = useStore((s) => s.engine.model?.path ?? s.modelPath);
  const reportError = useStore((s) => s.reportError);
  const runComparison = useStore((s) => s.runComparison);
  return (
    <div className="panel">
      <h4>Run one prompt under several policies</h4>
      <div className="row wrap">
        {POLICIES.map((p) => (
          <label key={p} className="check">
            <input type="checkbox" data-testid="compare-policy" data-policy={p} checked={policies.includes(p)} onChange={(e) => setPolicies(e.currentTarget.checked ? [...policies, p] : policies.filter((x) => x !== p))} />
            {p}
          </label>
        ))}
      </div>
      <div className="row">
        <input type="text" className="grow" data-testid="compare-prompt" value={prompt} onChange={(e) => setPrompt(e.currentTarget.value)} />
        <input type="number" min={1} max={4096} value={maxTokens} title="max tokens" onChange={(e) => setMaxTokens(Math.max(1, Number(e.currentTarget.value) || 1))} />
        <button className="btn primary" data-testid="compare-run" disabled={!!run || !path || policies.length === 0} onClick={() => void runComparison(policies, prompt, maxTokens)}>
          {run ? 'Running…' : 'Run'}
        </button>
      </div>
      <div className="dim">
        {run ? run.policies.map((p) => `${p}: ${run.tokens[p] ?? 0} tokens`).join(' · ') : path ? `model: ${path.split(/[\\/]/).pop()}` : 'open or load a model first'}
      </div>
      {reportError && <div className="err-text">{reportError}</div>}
    </div>
  );
}

function CompareTable({ reports }: { reports: OpenReport[] }) {
  const rows = reports.map((r) => compareRow(r.info, r.label));
  const same = tokensIdentical(reports.map((r) => r.info));
  const diverge = same === false ? firstDivergence(reports.map((r) => r.info)) : null;
  const best = (k: 'tokS' | 'ttftMs' | 'bytesPerToken' | 'readOverFloor' | 'limitHitsDecode' | 'pinnedResidentMin' | 'peakBytes', high: boolean): number | null => {
    const v = rows.map((r) => r[k]).filter((x): x is number => x !== null);
    return v.length ? (high ? Math.max(...v) : Math.min(...v)) : null;
  };
  const cls = (v: number | null, b: number | null) => (v !== null && v === b && rows.length > 1 ? 'v best' : 'v');
  return (
    <>
      <div className="row cmp-bar">
        <span className={same === true ? 'badge ok' : same === false ? 'badge bad' : 'badge'} data-testid="compare-identical" data-identical={same === null ? 'unknown' : String(same)}>
          tokens identical: {same === null ? 'n/a' : same ? 'yes' : `no${diverge !== null ? ` (first difference at token ${diverge})` : ''}`}
        </span>
      </div>
      <div className="cmp-cols">
        {reports.map((r, i) => {
          const row = rows[i]!;
          const d = reportDashboard(r.info);
          return (
            <div key={r.id} className="cmp-col" data-testid="compare-result" data-policy={r.policy ?? ''}>
              <div className="panel">
                <h4>
                  {row.label}
                  <span className="spacer" />
                  <span className={row.status === 'ok' ? 'badge ok' : 'badge'}>{row.status ?? '—'}</span>
                </h4>
                <div className="kv">
                  <span className="dim">policy</span><span className="v">{r.policy ?? '—'}</span>
                  <span className="dim">decode</span><span className={cls(row.tokS, best('tokS', true))}>{formatTokS(row.tokS)}</span>
                  <span className="dim">TTFT</span><span className={cls(row.ttftMs, best('ttftMs', false))}>{formatMs(row.ttftMs)}</span>
                  <span className="dim">read / token</span><span className={cls(row.bytesPerToken, best('bytesPerToken', false))}>{formatBytesPerTok(row.bytesPerToken)}</span>
                  <span className="dim">floor / token</span><span className="v" data-testid="compare-floor" title={r.info.figures.floor.note ?? undefined}>{formatBytesPerTok(row.floorBytesPerToken)}</span>
                  <span className="dim">read / floor</span><span className={cls(row.readOverFloor, best('readOverFloor', false))}>{row.readOverFloor === null ? '—' : `${row.readOverFloor.toFixed(2)}×`}</span>
                  <span className="dim">limit hits (decode)</span><span className={cls(row.limitHitsDecode, best('limitHitsDecode', false))} title={r.info.figures.limitHits.note ?? undefined}>{formatCount(row.limitHitsDecode)}</span>
                  <span className="dim">locked min</span><span className={cls(row.pinnedResidentMin, best('pinnedResidentMin', true))} title={r.info.figures.pinnedResidentMin.note ?? undefined}>{formatPct(row.pinnedResidentMin, 1)}</span>
                  <span className="dim">peak memory</span><span className={cls(row.peakBytes, best('peakBytes', false))}>{formatBytes(row.peakBytes)}</span>
                  <span className="dim">tokens</span><span className="v">{row.tokens}</span>
                </div>
              </div>
              {d.residencyRows ? (
                <TierHeatmap specs={d.residencyRows} samples={d.samples} readsObserved={d.readsObserved} small testId="compare-heatmap" />
              ) : (
                <ResidencyHeatmap layers={d.layers} samples={d.samples} small testId="compare-heatmap" />
              )}
            </div>
          );
        })}
      </div>
    </>
  );
}
