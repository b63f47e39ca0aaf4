// The load settings' draft model for speculative decoding: its path (typed, or picked: a local
// path in Electron, an upload in browser mode; empty is none) and the tokens drafted per pass.
import { useEffect, useRef, useState } from 'react';
import type { RunSettings } from '../../src-main/shared/api.js';
import { LIMITS } from '../../src-main/shared/settings/run-settings.js';
import { pathForDroppedFile } from '../api.js';
import { draftBlocked, draftMaxPatch, draftPathPatch } from '../lib/draft-settings.js';
import { useStore } from '../store/index.js';
import { errorText } from '../store/types.js';
import { IntField } from './IntField.js';

export function DraftSettings() {
  const settings = useStore((s) => s.settings);
  const setSettings = useStore((s) => s.setSettings);
  return <DraftFields settings={settings} onChange={setSettings} pick={pathForDroppedFile} />;
}

interface Props {
  settings: Pick<RunSettings, 'draft' | 'draftMax' | 'draftMin' | 'parallel'>;
  onChange(patch: Partial<RunSettings>): void;
  /** The path the host reads a picked file at. */
  pick(file: File): Promise<string>;
}

export function DraftFields({ settings, onChange, pick }: Props) {
  const blocked = draftBlocked(settings);
  // The typed path is committed on Enter or leaving the field: each commit asks for a new plan.
  const [text, setText] = useState(settings.draft ?? '');
  const [pickError, setPickError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => setText(settings.draft ?? ''), [settings.draft]);
  const commit = (t: string) => {
    const patch = draftPathPatch(t);
    if (patch.draft !== settings.draft) onChange(patch);
  };
  const off = blocked !== null;
  return (
    <>
      <div className="field wide" title="A small model with the same vocabulary proposes tokens; the model verifies them in one pass (speculative decoding). Empty: none.">
        <span>Draft model</span>
        <div className="row">
          <input
            type="text"
            className="grow"
            data-testid="setting-draft"
            aria-label="Draft model"
            placeholder="none (path to a .gguf)"
            disabled={off}
            value={text}
            onChange={(e) => setText(e.currentTarget.value)}
            onBlur={(e) => commit(e.currentTarget.value)}
            onKeyDown={(e) => e.key === 'Enter' && commit(e.currentTarget.value)}
          />
          <button type="button" className="btn small" disabled={off} onClick={() => input.current?.click()}>
            Pick…
          </button>
          {settings.draft !== null && (
            <button type="button" className="btn small" data-testid="setting-draft-clear" disabled={off} onClick={() => onChange({ draft: null })} title="no draft model">
              ×
            </button>
          )}
        </div>
        <input
          ref={input}
          className="hidden-input"
          type="file"
          accept=".gguf"
          data-testid="setting-draft-file"
          onChange={(e) => {
            const f = e.currentTarget.files?.[0];
            e.currentTarget.value = '';
            if (!f) return;
            setPickError(null);
            pick(f).then(
              (draft) => onChange({ draft }),
              (err: unknown) => setPickError(errorText(err)),
            );
          }}
        />
      </div>
      <IntField
        label="Draft max"
        testId="setting-draft-max"
        min={Math.max(1, LIMITS.draftTokens.min)}
        max={LIMITS.draftTokens.max}
        auto={false}
        disabled={off || settings.draft === null}
        value={settings.draftMax}
        onChange={(v) => v !== null && onChange(draftMaxPatch(settings, v))}
        title="Most tokens drafted per pass (the engine adapts within min–max from the measured acceptance)"
      />
      <IntField
        label="Draft min"
        testId="setting-draft-min"
        min={LIMITS.draftTokens.min}
        max={settings.draftMax}
        auto={false}
        disabled={off || settings.draft === null}
        value={settings.draftMin}
        onChange={(v) => v !== null && onChange({ draftMin: v })}
        title="Tokens drafted per pass even when the draft is unsure"
      />
      {blocked && (
        <div className="field wide faint" data-testid="setting-draft-note">
          {blocked}
        </div>
      )}
      {pickError && <div className="field wide err-text">{pickError}</div>}
    </>
  );
}
