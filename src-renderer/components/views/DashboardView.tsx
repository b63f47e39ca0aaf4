// Live memory dashboard (or a saved report's): residency heatmap, eviction/prefetch
// timeline, the stream schedule and how decode ran under the cap (limit hits, locked-weight
// residency, read rate, bytes per token against the floor), a mixture of experts' expert reads
// against Belady's optimum (its floor), cgroup usage, tok/s, speculative decoding and the API
// server's load (live only), ledger.
import { useMemo } from 'react';
import { formatBytes, formatBytesPerTok, formatCount, formatMs, formatPct, formatRate, formatTokS } from '../../lib/format.js';
import { bytesPerTokenSeries, peakOf, tokSSeries } from '../../lib/series.js';
import { readOverFloor } from '../../lib/stream-figures.js';
import { limitHitsSeries, pinnedResidentSeries, readRateSeries } from '../../lib/stream-series.js';
import { BytesPerTokenChart } from '../charts/BytesPerTokenChart.js';
import { CgroupChart } from '../charts/CgroupChart.js';
import { EventTimeline } from '../charts/EventTimeline.js';
import { LedgerTable } from '../charts/LedgerTable.js';
import { LimitHitsChart } from '../charts/LimitHitsChart.js';
import { PinnedResidencyChart } from '../charts/PinnedResidencyChart.js';
import { ReadRateChart } from '../charts/ReadRateChart.js';
import { ResidencyPanel } from './ResidencyPanel.js';
import { TokSChart } from '../charts/TokSChart.js';
import { ExpertHeatmap } from '../charts/ExpertHeatmap.js';
import { ExpertHitChart } from '../charts/ExpertHitChart.js';
import { expertGrid, expertHitSeries, expertTotals } from '../../lib/expert-model.js';
import { Kpi } from '../Kpi.js';
import { VramKpi } from '../VramKpi.js';
import { ServerPanel } from '../server/ServerPanel.js';
import { SpeculativePanel } from '../speculative/SpeculativePanel.js';
import { ReportActions, SourceSelect } from '../ReportActions.js';
import { useDashboardData } from '../use-dashboard.js';
import { ReportSummary } from './ReportSummary.js';
import { SchedulePanel } from './SchedulePanel.js';
import { NetworkPanel } from '../NetworkPanel.js';
import { RoutingPanel } from '../RoutingPanel.js';
import { OPTIMUM_NOTE } from '../../lib/routing-model.js';
import { networkView } from '../../lib/network-model.js';
import { useStore } from '../../store/index.js';

export function DashboardView() {
  const { data, report } = useDashboardData();
  const bpt = useMemo(() => bytesPerTokenSeries(data.samples), [data.samples]);
  const toks = useMemo(() => tokSSeries(data.samples), [data.samples]);
  const pinned = useMemo(() => pinnedResidentSeries(data.samples), [data.samples]);
  const rate = useMemo(() => readRateSeries(data.samples), [data.samples]);
  const hits = useMemo(() => limitHitsSeries(data.samples), [data.samples]);
  const experts = useMemo(() => expertGrid(data.samples), [data.samples]);
  const expertHits = useMemo(() => expertHitSeries(data.samples), [data.samples]);
  const expertTotal = useMemo(() => expertTotals(data.samples), [data.samples]);
  const network = useMemo(() => networkView(data.samples), [data.samples]);
  const remotePlan = useStore((s) => s.plan?.remote ?? null);
  const live = report?.id === 'last' || !report;
  const gen = report?.info.generation ?? null;
  const f = data.figures;
  const measured = bpt.length ? bpt.reduce((a, p) => a + p.bytes, 0) / bpt.length : (report?.info.readBytesPerToken ?? null);
  const overFloor = readOverFloor(measured, f.floor.value);
  const note = (n: string | null) => n ?? undefined;
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
        <Kpi label="floor / token" value={formatBytesPerTok(f.floor.value)} title={note(f.floor.note)} testId="kpi-floor" />
        <Kpi label="read / floor" value={overFloor === null ? '—' : `${overFloor.toFixed(2)}×`} title="bytes read per token over the floor: 1× is the best any schedule can do" testId="kpi-read-over-floor" />
        {data.routing?.readOverOptimal != null && (
          <Kpi label="read / optimal" value={`${data.routing.readOverOptimal.toFixed(2)}×`} title={`expert reads over ${OPTIMUM_NOTE}`} testId="kpi-read-over-optimal" />
        )}
        <Kpi label="read rate" value={formatRate(f.readRate.value)} title={note(f.readRate.note)} testId="kpi-read-rate" />
        <Kpi label="limit hits" value={formatCount(f.limitHits.value)} title={`during decode: ${f.limitHits.note ?? 'unknown'}`} testId="kpi-limit-hits" />
        <Kpi label="locked min" value={formatPct(f.pinnedResidentMin.value, 1)} title={`lowest resident share of the locked weights during decode: ${f.pinnedResidentMin.note ?? 'unknown'}`} testId="kpi-pinned-min" />
        <Kpi label="peak RSS" value={formatBytes(peakOf(data.samples, 'rssBytes'))} />
        {live && <VramKpi />}
        <Kpi label="samples" value={String(data.samples.length)} />
        {expertTotal && <Kpi label="experts cached" value={formatPct(expertTotal.hit, 1)} title="routed experts already in the expert cache (whole run)" testId="kpi-expert-hits" />}
        {expertTotal && <Kpi label="experts predicted" value={formatPct(expertTotal.predicted, 1)} title="routed experts the next-layer prediction read ahead (whole run)" testId="kpi-expert-predicted" />}
      </div>
      <ResidencyPanel data={data} />
      {experts && (
        <div className="grid2">
          <div className="panel">
            <h4>
              Experts: use and residency<span className="spacer" />
              <span className="faint">{experts.layers.length} layers × {experts.experts} experts</span>
            </h4>
            <ExpertHeatmap grid={experts} />
          </div>
          <div className="panel">
            <h4>Expert cache hit rate</h4>
            <ExpertHitChart points={expertHits} predicted={expertTotal?.predicted ?? null} />
          </div>
        </div>
      )}
      {data.routing && <RoutingPanel view={data.routing} live={live} />}
      <div className="panel">
        <h4>Prefetch / eviction timeline</h4>
        <EventTimeline events={data.events} />
      </div>
      {network && <NetworkPanel view={network} plan={live ? remotePlan : null} />}
      {data.schedule && <SchedulePanel schedule={data.schedule} counters={data.counters} />}
      <div className="grid2">
        <div className="panel">
          <h4>Bytes read per token</h4>
          <BytesPerTokenChart points={bpt} floor={f.floor} predicted={data.predictedBytesPerToken} />
        </div>
        <div className="panel">
          <h4>Decode speed</h4>
          <TokSChart points={toks} />
        </div>
        <div className="panel">
          <h4>Read rate during decode</h4>
          <ReadRateChart points={rate} mean={f.readRate} device={data.diskBytesPerS} />
        </div>
        <div className="panel">
          <h4>Locked weights resident</h4>
          <PinnedResidencyChart points={pinned} minimum={f.pinnedResidentMin} lockedBytes={data.schedule?.pinnedBytes ?? null} />
        </div>
        <div className="panel">
          <h4>cgroup usage vs cap</h4>
          <CgroupChart points={data.cgroupPoints} info={data.cgroup} oom={data.oom} />
        </div>
        <div className="panel">
          <h4>Limit hits during decode</h4>
          <LimitHitsChart points={hits} total={f.limitHits} />
        </div>
      </div>
      {live && <SpeculativePanel />}
      {live && <ServerPanel />}
      <div className="panel">
        <h4>Memory ledger</h4>
        <LedgerTable rows={data.ledger} reconciliation={data.reconciliation} actions={data.actions} />
      </div>
    </div>
  );
}
