// The dashboard's routing panel of a mixture of experts: the expert cache's reads against Belady's
// optimum for the same routing and cache size (the MoE's floor), the trace being replayed, and
// read-ahead (the share of predictions acted on, their recall, the bytes read in vain).
import { OPTIMUM_NOTE, traceLine, type RoutingView, type TiersView } from '../lib/routing-model.js';
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
      {view.tiers && <TierRow t={view.tiers} />}
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

/** The expert cache's VRAM tier: where the routed experts were found, tier by tier (whole run). */
function TierRow({ t }: { t: TiersView }) {
  const all = t.vramHits + t.ramHits + t.storageReads;
  const share = (n: number) => (all > 0 ? formatPct(n / all, 1) : '—');
  return (
    <div className="row wrap legend" data-testid="routing-tiers" data-vram-hits={t.vramHits} data-ram-hits={t.ramHits} data-storage-reads={t.storageReads} data-uploads={t.uploads}>
      <span title={`routed experts found in one of the ${t.slotsPerLayer ?? '—'} VRAM slots per layer on ${t.device} (decode: ${formatPct(t.decodeVramHitRate, 1)})`}>
        VRAM <b data-testid="routing-tier-vram">{share(t.vramHits)}</b>
      </span>
      <span title="routed experts VRAM did not hold, found in a RAM slot (uploaded from it)">
        RAM <b data-testid="routing-tier-ram">{share(t.ramHits)}</b>
      </span>
      <span title="routed experts read from storage (then uploaded)">
        storage <b data-testid="routing-tier-storage">{share(t.storageReads)}</b>
      </span>
      <span title="experts copied from RAM into VRAM">uploaded {formatCount(t.uploads)} ({formatBytes(t.uploadBytes)})</span>
    </div>
  );
}
