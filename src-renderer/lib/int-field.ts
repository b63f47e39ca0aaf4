// What a whole-number settings field holds while the user types. Half-typed text ("2" on the
// way to "2048") is not committed, so the form never clamps a number under the user's cursor.

export interface IntFieldRule {
  min: number;
  max: number;
  /** Empty text means "choose for me" (null). */
  auto: boolean;
}

export type IntFieldValue = { ok: true; value: number | null } | { ok: false; error: string };

export function parseIntField(text: string, rule: IntFieldRule): IntFieldValue {
  const t = text.trim();
  if (t === '') return rule.auto ? { ok: true, value: null } : { ok: false, error: 'required' };
  if (!/^\d+$/.test(t)) return { ok: false, error: 'a whole number' };
  const n = Number(t);
  if (n < rule.min || n > rule.max) return { ok: false, error: `${rule.min}..${rule.max}` };
  return { ok: true, value: n };
}

/** The field's text for a committed value. */
export function intFieldText(value: number | null): string {
  return value === null ? '' : String(value);
}
