// The plan's draft section (MemoryPlan.draft: a draft model for speculative decoding), read
// defensively: what the draft costs the model under the cap, the tokens each verify pass must
// yield for it to pay off, and the planner's verdict with its reason.
import { bool, field, isObj, numLike, str } from './fields.js';

export interface PlanDraft {
  path: string | null;
  /** Target weights the draft reads through the target's copy (held resident for it). */
  sharedBytes: number | null;
  ownWeightBytes: number | null;
  /** Its tokenizer, KV cache and buffers. */
  overheadBytes: number | null;
  /** Target weight bytes no longer resident because the draft takes their room. */
  residentCostBytes: number | null;
  extraReadPerPassBytes: number | null;
  breakEvenTokensPerPass: number | null;
  pays: boolean | null;
  reason: string | null;
  /** Each figure's formula, as the planner wrote it. */
  formulas: string[];
}

const QUANTITIES = ['sharedBytes', 'ownWeightBytes', 'overheadBytes', 'residentCostBytes', 'extraReadPerPassBytes', 'breakEvenTokensPerPass'] as const;

export function planDraft(raw: unknown): PlanDraft | null {
  if (!isObj(raw)) return null;
  const q = (name: (typeof QUANTITIES)[number]) => numLike(field(raw, name));
  const formulas = QUANTITIES.flatMap((name) => {
    const f = str(field(raw, name), 'formula');
    return f ? [`${name}: ${f}`] : [];
  });
  return {
    path: str(raw, 'path'),
    sharedBytes: q('sharedBytes'),
    ownWeightBytes: q('ownWeightBytes'),
    overheadBytes: q('overheadBytes'),
    residentCostBytes: q('residentCostBytes'),
    extraReadPerPassBytes: q('extraReadPerPassBytes'),
    breakEvenTokensPerPass: q('breakEvenTokensPerPass'),
    pays: bool(raw, 'pays'),
    reason: str(raw, 'reason'),
    formulas,
  };
}
