// The plan for the chosen budget and context: tiers per layer, predicted cost, verdict, and
// with a draft model what it costs and whether it pays off.
import { formatBytes, formatBytesPerTok, formatTokS } from '../../lib/format.js';
import { useStore } from '../../store/index.js';
import { PlanBar } from '../charts/PlanBar.js';
import { Empty } from '../Empty.js';
import { Kpi } from '../Kpi.js';
import { PlanDraftSection } from './PlanDraftSection.js';
import { planGpuText } from '../../lib/gpu-model.js';
import { remoteLines } from '../../lib/plan-model.js';

// MemoryPlan verdicts: 'fits' | 'out-of-core' | 'cannot-run'.
function verdictClass(v: string | null): string {
  if (v === 'fits') return 'badge ok';
  if (v === 'cannot-run') return 'badge bad';
  return v ? 'badge warn' : 'badge';
}

export function PlanPanel() {
  const plan = useStore((s) => s.plan);
  const planError = useStore((s) => s.planError);
  const planning = useStore((s) => s.planning);
  const budget = useStore((s) => s.settings.ramBytes);
  const ctx = useStore((s) => s.settings.ctx);
  // An auto context is whatever the plan chose for the cap.
  const ctxText = ctx !== null ? String(ctx) : plan?.shape.ctx != null ? `auto (${plan.shape.ctx})` : 'auto';
  return (
    <div className="panel">
      <h4>
        Plan · {budget === null ? 'no RAM budget' : `${formatBytes(budget)} RAM`} · ctx {ctxText}
        {planning && <span className="faint">updating…</span>}
        <span className="spacer" />
        {plan?.verdict && (
          <span className={verdictClass(plan.verdict)} data-testid="plan-verdict">
            {plan.verdict}
          </span>
        )}
      </h4>
      {planError ? (
        <div className="err-text" data-testid="plan-error">
          {planError}
        </div>
      ) : !plan ? (
        <Empty text="Planning…" />
      ) : (
        <>
          <div className="kpis">
            <Kpi label="bytes read / token" value={formatBytesPerTok(plan.bytesPerToken)} testId="plan-bytes-per-token" />
            <Kpi label="floor / token" value={formatBytesPerTok(plan.floorBytesPerToken)} title="no schedule reads less under this cap: weights − (cap − non-weight memory)" testId="plan-floor" />
            <Kpi label="predicted decode" value={formatTokS(plan.tokS)} testId="plan-toks" />
            <Kpi label="KV cache" value={formatBytes(plan.kvBytes)} />
            <Kpi label="compute buffers" value={formatBytes(plan.computeBytes)} />
            <Kpi label="resident" value={formatBytes(plan.residentBytes)} />
            {plan.stream && <Kpi label="stream window" value={formatBytes(plan.stream.windowBytes)} title={`${plan.stream.tensors} tensors stream through it`} />}
            {plan.headroomBytes !== null && <Kpi label="headroom" value={formatBytes(plan.headroomBytes)} title="kept free under the cap so decode does not hit the limit" />}
            {plan.minCapBytes !== null && <Kpi label="smallest cap" value={formatBytes(plan.minCapBytes)} />}
          </div>
          <PlanBar layers={plan.layers} />
          {plan.gpu && (
            <div className="dim" data-testid="plan-vram">
              {planGpuText(plan.gpu, formatBytes)}
            </div>
          )}
          {plan.remote && (
            <div className="dim" data-testid="plan-remote">
              Other machines (RPC): {remoteLines(plan.remote, formatBytes).join('; ')}
            </div>
          )}
          {plan.verdictText && <div className="dim">{plan.verdictText}</div>}
          {plan.draft && <PlanDraftSection draft={plan.draft} />}
          {plan.formula.length > 0 && (
            <details>
              <summary>How this was computed</summary>
              <pre className="template">{plan.formula.join('\n')}</pre>
            </details>
          )}
        </>
      )}
    </div>
  );
}
