// The lossy knobs of a mixture of experts (RunSettings.expertsUsed, skipColdExperts): whether a
// model takes them, in the words of whoever set them (the CLI's flags, the app's fields). They
// change the answer, so they are never on by default and never applied to a model they do not
// fit silently. Pure.
import type { ModelView } from '../gguf/model-view.js';
import type { RunSettings } from '../settings/run-settings.js';

export interface LossyNames {
  expertsUsed: string;
  skipColdExperts: string;
  routingTrace: string;
}

export const LOSSY_FLAGS: LossyNames = { expertsUsed: '--experts-used', skipColdExperts: '--skip-cold-experts', routingTrace: '--routing-trace' };

/** Why these settings cannot run on this model, or null. */
export function lossyRefusal(view: Pick<ModelView, 'moe'>, s: Pick<RunSettings, 'expertsUsed' | 'skipColdExperts' | 'routingTrace'>, names: LossyNames = LOSSY_FLAGS): string | null {
  const moe = view.moe ?? null;
  if (s.expertsUsed !== null) {
    if (!moe) return `${names.expertsUsed} ${s.expertsUsed}: the model is not a mixture of experts`;
    if (s.expertsUsed > moe.expertCount) return `${names.expertsUsed} ${s.expertsUsed}: the model has ${moe.expertCount} experts`;
    if (s.routingTrace !== null) return `${names.expertsUsed} does not combine with ${names.routingTrace}: a trace replays the experts per token it was recorded with`;
  }
  if (s.skipColdExperts !== null && !moe) return `${names.skipColdExperts} ${s.skipColdExperts}: the model is not a mixture of experts`;
  return null;
}

/** The knobs a run was given, as its report and bench name them (empty: lossless). */
export function lossyLabel(s: Pick<RunSettings, 'expertsUsed' | 'skipColdExperts'>): string {
  return [s.expertsUsed !== null ? `experts-used=${s.expertsUsed}` : '', s.skipColdExperts !== null ? `skip-cold=${s.skipColdExperts}` : ''].filter(Boolean).join(',');
}
