// The plan's draft section: what a draft model (speculative decoding) costs the model under the
// cap, the tokens each verify pass must yield for it to pay off, and whether it can, and why.
import { formatBytes } from '../../lib/format.js';
import type { PlanDraft } from '../../lib/plan-draft.js';
import { Kpi } from '../Kpi.js';
import './plan-draft.css';

export function PlanDraftSection({ draft }: { draft: PlanDraft }) {
  const pays = draft.pays;
  return (
    <div className="stack plan-draft" data-testid="plan-draft">
      <h4>
        Draft model<span className="spacer" />
        <span className={pays === null ? 'badge' : pays ? 'badge ok' : 'badge warn'} data-testid="plan-draft-pays" data-pays={pays === null ? '' : String(pays)}>
          {pays === null ? 'unknown' : pays ? 'can pay off' : 'does not pay off'}
        </span>
      </h4>
      <div className="kpis">
        <Kpi label="cost to the model" value={formatBytes(draft.residentCostBytes)} title="weights of the model no longer held resident because the draft takes their room" testId="plan-draft-cost" />
        <Kpi label="break-even" value={draft.breakEvenTokensPerPass === null ? '—' : `${draft.breakEvenTokensPerPass.toFixed(2)} tok/pass`} title="tokens each verify pass must yield for the draft to pay off" testId="plan-draft-break-even" />
        <Kpi label="extra read / pass" value={formatBytes(draft.extraReadPerPassBytes)} title="what each pass over the model reads beyond a pass without the draft" />
        <Kpi label="shared weights" value={formatBytes(draft.sharedBytes)} title="the model's weights the draft reads through the model's copy (held resident)" testId="plan-draft-shared" />
        <Kpi label="draft's own weights" value={formatBytes(draft.ownWeightBytes)} />
        <Kpi label="draft KV and buffers" value={formatBytes(draft.overheadBytes)} title="its tokenizer, KV cache, compute buffers and the verify passes' logits" />
      </div>
      {draft.reason && (
        <div className="dim" data-testid="plan-draft-reason">
          {draft.reason}
        </div>
      )}
      {draft.formulas.length > 0 && (
        <details>
          <summary>How the draft's share was computed</summary>
          <pre className="template">{draft.formulas.join('\n')}</pre>
        </details>
      )}
    </div>
  );
}
