// The dashboard's routing panel of a mixture of experts: the expert cache's reads against Belady's
// optimum for the same routing and cache size (the MoE's floor), the trace being replayed, and
// read-ahead (the share of predictions acted on, their recall, the bytes read in vain).
import { OPTIMUM_NOTE, traceLine, type RoutingView } from '../lib/routing-model.js';
import { formatBytes, formatBytesPerTok, formatCount, formatPct } from '../lib/format.js';
import { Kpi } from './Kpi.js';

const formatTimes = (v: number | null): string => (v === null ? '—' : `${v.toFixed(2)}×`);

export function RoutingPanel({ view, live }: { view: RoutingView; live: boolean }) {
  const known = view.optimalReadBytes !== null;
  const ra = view.readAhead;
  return (
    <div className="panel" data-testid="routing-panel" data-read-over-optimal={view.readOverOptimal ?? ''} data-trace={view.trace ?? ''}>
      <h4>
        Expert reads against the optimum<span className="spacer" />
        <span className="faint">{view.slotsPerLayer === null ? 'no expert cache' : `${view.slotsPerLayer} slots per layer`}</span>
      </h4>
      <div className="kpis">
        <Kpi label="read ÷ optimal" value={formatTimes(view.readOverOptimal)} title={`the expert cache's reads over ${OPTIMUM_NOTE}`} testId="routing-read-over-optimal" />
        <Kpi label="optimum reads" value={formatBytes(view.optimalReadBytes)} title={OPTIMUM_NOTE} testId="routing-optimal-bytes" />
        <Kpi label="expert reads" value={formatBytes(view.readBytes)} title="what the expert cache read (whole run)" testId="routing-read-bytes" />
        <Kpi label="LRU would read" value={formatBytes(view.lruReadBytes)} title="a cache of the same size evicting the least recently used expert, without read-ahead" />
        <Kpi label="optimum / token" value={formatBytesPerTok(view.optimalDecodeBytesPerToken)} title="the optimum's reads per decoded token" />
      </div>
      <div className="faint" data-testid="routing-optimum-note">
        {known ? OPTIMUM_NOTE : `${OPTIMUM_NOTE}: known ${live ? 'when the turn ends' : 'only where the run kept its routing (an expert cache under the stream policy)'}.`}
      </div>
      <div data-testid="routing-trace">Routing: {traceLine(view)}</div>
      {view.recordedTo && <div data-testid="routing-recorded-to">Written to {view.recordedTo}</div>}
      {view.skipped !== null && view.skipped > 0 && (
        <div className="err-text" data-testid="routing-skipped" data-skipped={view.skipped} title="--skip-cold-experts: the run changed the answer">
          Lossy: {formatCount(view.skipped)} uncached experts skipped (computed as zero; mean routing weight {formatPct(view.skippedMeanWeight, 1)})
        </div>
      )}
      {ra && (
        <div className="row wrap legend" data-testid="routing-read-ahead">
          <span title="of the next-layer predictions made, the share read ahead (read-ahead stops itself while fewer than half of its reads are used)">
            read-ahead acted on <b data-testid="routing-issued-share">{formatPct(ra.issuedShare, 1)}</b> of predictions
          </span>
          <span title="of the experts routed during decode, the share the prediction named (decode_prediction_accuracy)">
            recall <b data-testid="routing-recall">{formatPct(ra.recall, 1)}</b>
          </span>
          <span title="bytes read ahead for experts never used">
            read in vain <b data-testid="routing-wasted">{formatBytes(ra.wastedBytes)}</b>
          </span>
          <span title="read-ahead jobs still queued when the real routing arrived, dropped unread">dropped {formatCount(ra.dropped)}</span>
        </div>
      )}
    </div>
  );
}
