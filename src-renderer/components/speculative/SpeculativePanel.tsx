// The dashboard's view of speculative decoding (a draft model loaded beside the model): how
// often the model keeps what the draft proposes, the tokens each pass over the model yields,
// where the time goes (drafting vs verifying) and what storage is read per generated token.
import { useMemo } from 'react';
import type { DraftInfo } from '../../../src-main/shared/worker-protocol.js';
import { formatBytes, formatBytesPerTok, formatCount, formatMs, formatPct } from '../../lib/format.js';
import { bytesPerGeneratedToken, specFigures, type SpecRun } from '../../lib/speculative-model.js';
import { useStore } from '../../store/index.js';
import { AcceptanceChart } from '../charts/AcceptanceChart.js';
import { Kpi } from '../Kpi.js';
import './speculative.css';

/** Shown while the loaded model has a draft. */
export function SpeculativePanel() {
  const draft = useStore((s) => s.engine.model?.draft ?? null);
  const run = useStore((s) => s.spec);
  const samples = useStore((s) => s.samples);
  const readPerToken = useMemo(() => bytesPerGeneratedToken(samples), [samples]);
  return draft ? <SpeculativePanelView draft={draft} run={run} readPerToken={readPerToken} /> : null;
}

export function SpeculativePanelView({ draft, run, readPerToken = null }: { draft: DraftInfo; run: SpecRun; readPerToken?: number | null }) {
  const f = specFigures(run);
  const state = f.done ? 'done' : f.passes > 0 ? 'live' : 'empty';
  return (
    <div className="panel" data-testid="speculative-panel" data-state={state}>
      <h4>
        Speculative decoding<span className="spacer" />
        <span className="faint spec-draft" title={draft.path} data-testid="spec-draft">
          {`draft ${draft.name} · ${draft.nLayers} layer${draft.nLayers === 1 ? '' : 's'} · k ${draft.min}–${draft.max} · ${formatBytes(draft.sharedBytes)} shared with the model`}
        </span>
      </h4>
      <div className="kpis">
        <Kpi label="target passes" value={formatCount(f.passes)} title="verify passes over the model: each reads its streamed weights once" testId="spec-passes" />
        <Kpi label="drafted" value={formatCount(f.drafted)} title="tokens the draft proposed" testId="spec-drafted" />
        <Kpi label="accepted" value={formatCount(f.accepted)} title="proposed tokens the model kept" testId="spec-accepted" />
        <Kpi label="acceptance" value={formatPct(f.acceptance)} title="accepted / drafted" testId="spec-acceptance" />
        <Kpi label="tokens / pass" value={f.tokensPerPass === null ? '—' : f.tokensPerPass.toFixed(2)} title="generated tokens (after the first, which the prompt pass yields) per verify pass" testId="spec-tokens-per-pass" />
        <Kpi label="draft time" value={formatMs(f.draftMs)} title="time the draft spent proposing (known when the generation ends)" testId="spec-draft-ms" />
        <Kpi label="verify time" value={formatMs(f.verifyMs)} title="time the model spent verifying (known when the generation ends)" testId="spec-verify-ms" />
        <Kpi label="drafting share" value={formatPct(f.draftShare)} title="draft time / (draft + verify time)" testId="spec-draft-share" />
        <Kpi label="read / generated token" value={formatBytesPerTok(readPerToken)} title="bytes read from storage per generated token during the last decode: each pass's read is shared by the tokens it yields" testId="spec-read-per-token" />
      </div>
      <AcceptanceChart points={run.points} />
      <div className="faint">The app's own generations; times arrive when a generation ends.</div>
    </div>
  );
}
