// The load settings' lossy knobs of a mixture of experts: experts per token in place of the
// model's own number, and skipping a decoded token's uncached experts that its router weighted
// below a share. Committed on Enter or leaving the field; a warning stays while either is set.
import { useState } from 'react';
import { CommitField } from './CommitField.js';
import { LOSSY_LABEL, LOSSY_WARNING, isLossy, lossyPatch, type LossyField } from '../lib/lossy-settings.js';
import { useStore } from '../store/index.js';

const TITLE: Record<LossyField, string> = {
  expertsUsed: "A mixture of experts: route each token to this many experts instead of the model's own number (fewer is faster and changes the answer). Empty: the model's own.",
  skipColdExperts: "A mixture of experts under the expert cache: a decoded token's expert that is not cached and that its router gave less than this share of its weight is skipped instead of read (changes the answer). Empty: never.",
};

const TEST_ID: Record<LossyField, string> = { expertsUsed: 'setting-experts-used', skipColdExperts: 'setting-skip-cold' };

const PLACEHOLDER: Record<LossyField, string> = { expertsUsed: "the model's own", skipColdExperts: 'never (e.g. 0.05)' };

export function LossySettings() {
  const settings = useStore((s) => s.settings);
  const setSettings = useStore((s) => s.setSettings);
  const [error, setError] = useState<string | null>(null);
  const commit = (field: LossyField, text: string) => {
    const r = lossyPatch(field, text);
    setError(r.ok ? null : r.error);
    if (r.ok && r.patch[field] !== settings[field]) setSettings(r.patch);
  };
  return (
    <>
      <LossyField field="expertsUsed" value={settings.expertsUsed} commit={commit} />
      <LossyField field="skipColdExperts" value={settings.skipColdExperts} commit={commit} />
      {isLossy(settings) && (
        <div className="field wide err-text" data-testid="setting-lossy-warning">
          {LOSSY_WARNING}
        </div>
      )}
      {error && (
        <div className="field wide err-text" data-testid="setting-lossy-error">
          {error}
        </div>
      )}
    </>
  );
}

function LossyField({ field, value, commit }: { field: LossyField; value: number | null; commit(field: LossyField, text: string): void }) {
  return <CommitField label={`${LOSSY_LABEL[field]} (lossy)`} title={TITLE[field]} testId={TEST_ID[field]} placeholder={PLACEHOLDER[field]} inputMode="decimal" value={value === null ? '' : String(value)} commit={(t) => commit(field, t)} />;
}
