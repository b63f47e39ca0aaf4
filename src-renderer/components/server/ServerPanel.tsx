// The dashboard's view of the OpenAI-compatible API server: where it listens (or off), the
// requests it is serving and holding, what it refused, and the throughput each weight pass
// gives when several requests share it.
import type { ApiServerState } from '../../../src-main/shared/api.js';
import type { ServerStats } from '../../../src-main/shared/server-stats.js';
import { formatCount, formatTokS } from '../../lib/format.js';
import { serverUrl, type ServerPoint } from '../../lib/server-model.js';
import { useStore } from '../../store/index.js';
import { ServerChart } from '../charts/ServerChart.js';
import { Kpi } from '../Kpi.js';
import './server.css';

export function ServerPanel() {
  const state = useStore((s) => s.apiServer);
  const stats = useStore((s) => s.serverStats);
  const points = useStore((s) => s.serverSeries);
  return <ServerPanelView state={state} stats={stats} points={points} />;
}

export function ServerPanelView({ state, stats, points = [] }: { state: ApiServerState | null; stats: ServerStats | null; points?: ServerPoint[] }) {
  const url = serverUrl(state, stats);
  const s = url === null ? null : stats;
  const perPass = s?.tokensPerPass;
  return (
    <div className="panel" data-testid="server-panel" data-state={url === null ? 'off' : 'on'}>
      <h4>
        OpenAI-compatible API server<span className="spacer" />
        <span className="faint server-url" data-testid="server-url">
          {url ?? 'off'}
        </span>
      </h4>
      {url === null && (
        <div className="faint" data-testid="server-off-note">
          {state?.enabled && state.error ? `Not listening: ${state.error}` : 'Off. Turn it on under “OpenAI-compatible API” in the sidebar, or run ramforge serve --api.'}
        </div>
      )}
      <div className="kpis">
        <Kpi label="active / seqs" value={s ? `${s.activeRequests} / ${s.sequences}` : '—'} title="requests being decoded now / sequences the model was loaded with (--parallel)" testId="server-active" />
        <Kpi label="queued" value={s ? String(s.queued) : '—'} title="requests waiting for a free sequence" testId="server-queued" />
        <Kpi label="refused" value={s ? String(s.refused) : '—'} title="requests turned away because the queue was full (429/503) since the server started" testId="server-refused" />
        <Kpi label="aggregate" value={formatTokS(s?.aggregateTokS ?? null)} title="tokens per second over all requests, the last few seconds" testId="server-tok-s" />
        <Kpi label="tokens / pass" value={perPass === null || perPass === undefined ? '—' : perPass.toFixed(2)} title="generated tokens per weight pass: each streamed byte served this many tokens" testId="server-tokens-per-pass" />
        <Kpi label="completed" value={s ? formatCount(s.completed) : '—'} testId="server-completed" />
      </div>
      <ServerChart points={url === null ? [] : points} />
    </div>
  );
}
