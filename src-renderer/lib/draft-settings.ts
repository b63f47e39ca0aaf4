// The load settings' draft model (speculative decoding): what the form's fields change, and
// why the fields are off. Pure; checked again by the settings module when the load is made.
import type { RunSettings } from '../../src-main/shared/settings/run-settings.js';

/** The path field: empty (or blank) is no draft. */
export function draftPathPatch(text: string): Pick<RunSettings, 'draft'> {
  const t = text.trim();
  return { draft: t === '' ? null : t };
}

/** A lower most-drafted also lowers the least-drafted, which may not exceed it. */
export function draftMaxPatch(s: Pick<RunSettings, 'draftMin'>, draftMax: number): Pick<RunSettings, 'draftMax' | 'draftMin'> {
  return { draftMax, draftMin: Math.min(s.draftMin, draftMax) };
}

/** Why no draft can be set with these settings, or null when one can. */
export function draftBlocked(s: Pick<RunSettings, 'parallel'>): string | null {
  return s.parallel > 1 ? `A draft model serves one sequence: it does not combine with ${s.parallel} parallel sequences.` : null;
}
