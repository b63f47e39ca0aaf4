// Live memory dashboard (or a saved report's): residency heatmap, eviction/prefetch
// timeline, ledger, cgroup usage vs cap, bytes read per token, tok/s.
import { useMemo } from 'react';
import { formatBytes, formatBytesPerTok, formatMs, formatTokS } from '../../lib/format.js';
import { bytesPerTokenSeries, peakOf, tokSSeries } from '../../lib/series.js';
import { BytesPerTokenChart } from '../charts/BytesPerTokenChart.js';
import { CgroupChart } from '../charts/CgroupChart.js';
import { EventTimeline } from '../charts/EventTimeline.js';
import { LedgerTable } from '../charts/LedgerTable.js';
import { ResidencyHeatmap } from '../charts/ResidencyHeatmap.js';
import { TokSChart } from '../charts/TokSChart.js';
import { Kpi } from '../Kpi.js';
import { ReportActions, SourceSelect } from '../ReportActions.js';
import { useDashboardData } from '../use-dashboard.js';
import { ReportSummary } from './ReportSummary.js';

export function DashboardView() {
  const { data, report } = useDashboardData();
  const bpt = useMemo(() => bytesPerTokenSeries(data.samples), [data.samples]);
  const toks = useMemo(() => tokSSeries(data.samples), [data.samples]);
  const live = report?.id === 'last' || !report;
  const gen = report?.info.generation ?? null;
  const measured = bpt.length ? bpt.reduce((a, p) => a + p.bytes, 0) / bpt.length : (report?.info.readBytesPerToken ?? null);
  return (
    <div data-testid="dashboard-view">
      <div className="view-head">
        <h2>Memory dashboard</h2>
        <SourceSelect />
        <span className="grow" />
        <ReportActions />
      </div>
      {!live && report && <ReportSummary report={report} />}
      <div className="kpis">
        <Kpi label="decode" value={formatTokS(gen?.decodeTokS ?? toks[toks.length - 1]?.tokS ?? null)} />
        <Kpi label="TTFT" value={formatMs(gen?.ttftMs ?? null)} />
        <Kpi label="read / token" value={formatBytesPerTok(measured)} />
        <Kpi label="physical min / token" value={formatBytesPerTok(data.minBytesPerToken)} />
        <Kpi label="peak RSS" value={formatBytes(peakOf(data.samples, 'rssBytes'))} />
        <Kpi label="samples" value={String(data.samples.length)} />
      </div>
      <div className="panel">
        <h4>
          Residency per layer over time<span className="spacer" />
          <span className="faint">{data.layers.length} layers</span>
        </h4>
        <ResidencyHeatmap layers={data.layers} samples={data.samples} />
      </div>
      <div className="panel">
        <h4>Prefetch / eviction timeline</h4>
        <EventTimeline events={data.events} />
      </div>
      <div className="grid2">
        <div className="panel">
          <h4>Bytes read per token</h4>
          <BytesPerTokenChart points={bpt} minimum={data.minBytesPerToken} predicted={data.predictedBytesPerToken} />
        </div>
        <div className="panel">
          <h4>Decode speed</h4>
          <TokSChart points={toks} />
        </div>
        <div className="panel">
          <h4>cgroup usage vs cap</h4>
          <CgroupChart points={data.cgroupPoints} info={data.cgroup} oom={data.oom} />
        </div>
        <div className="panel">
          <h4>Memory ledger</h4>
          <LedgerTable rows={data.ledger} reconciliation={data.reconciliation} actions={data.actions} />
        </div>
      </div>
    </div>
  );
}
