// The load settings' lossy knobs of a mixture of experts (RunSettings.expertsUsed,
// skipColdExperts): typed text to a settings patch, or why not. Both change the answer, so the
// form says so whenever one is set. Pure; the load's preparation checks them again against the
// model (its experts, a routing trace).
import { LIMITS, type RunSettings } from '../../src-main/shared/settings/run-settings.js';

export type LossyField = 'expertsUsed' | 'skipColdExperts';

export const LOSSY_LABEL: Record<LossyField, string> = { expertsUsed: 'Experts per token', skipColdExperts: 'Skip cold experts below' };

export const LOSSY_WARNING = 'Lossy: these settings change the answer (the model computes with fewer experts than it chose).';

export type LossyPatch = { ok: true; patch: Partial<Pick<RunSettings, LossyField>> } | { ok: false; error: string };

/** What committing `text` in one lossy field changes, or why it cannot (empty: off). */
export function lossyPatch(field: LossyField, text: string): LossyPatch {
  const t = text.trim();
  if (t === '') return { ok: true, patch: { [field]: null } };
  const v = Number(t);
  const label = LOSSY_LABEL[field];
  if (field === 'expertsUsed') {
    const { min, max } = LIMITS.expertsUsed;
    if (!Number.isInteger(v) || v < min || v > max) return { ok: false, error: `${label}: a whole number ${min}..${max}, or empty for the model's own` };
    return { ok: true, patch: { expertsUsed: v } };
  }
  const { min, max } = LIMITS.skipColdExperts;
  if (!Number.isFinite(v) || v < min || v > max) return { ok: false, error: `${label}: a share of the routing weight ${min}..${max} (e.g. 0.05), or empty for never` };
  return { ok: true, patch: { skipColdExperts: v } };
}

/** Whether the settings change the answer. */
export const isLossy = (s: Pick<RunSettings, LossyField>): boolean => s.expertsUsed !== null || s.skipColdExperts !== null;
