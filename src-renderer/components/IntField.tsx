// A whole-number settings field: the text is the user's until it is a valid value, then the
// value is committed; leaving the field shows the committed value again.
import { useEffect, useState } from 'react';
import { intFieldText, parseIntField, type IntFieldRule } from '../lib/int-field.js';

interface Props extends IntFieldRule {
  label: string;
  testId: string;
  value: number | null;
  onChange(value: number | null): void;
  /** What auto will choose (or chose), shown in the empty field. */
  autoHint?: string | null;
  title?: string;
  disabled?: boolean;
}

export function IntField({ label, testId, value, onChange, min, max, auto, autoHint = null, title, disabled = false }: Props) {
  const rule = { min, max, auto };
  const [text, setText] = useState(intFieldText(value));
  const [error, setError] = useState<string | null>(null);
  // A value set elsewhere (a reset, another view) replaces the text, unless the text already says it.
  useEffect(() => {
    const p = parseIntField(text, rule);
    if (!p.ok || p.value !== value) {
      setText(intFieldText(value));
      setError(null);
    }
    // Only a new value resets the text, never a keystroke: `text` is left out on purpose.
  }, [value]);
  return (
    <label className="field" title={title}>
      <span>{label}</span>
      <input
        type="number"
        min={min}
        max={max}
        data-testid={testId}
        disabled={disabled}
        placeholder={auto ? (autoHint ? `auto (${autoHint})` : 'auto') : undefined}
        aria-invalid={error !== null}
        className={error ? 'invalid' : undefined}
        value={text}
        onChange={(e) => {
          const t = e.currentTarget.value;
          const p = parseIntField(t, rule);
          setText(t);
          setError(p.ok ? null : p.error);
          if (p.ok && p.value !== value) onChange(p.value);
        }}
        onBlur={() => {
          setText(intFieldText(value));
          setError(null);
        }}
      />
      {error && <div className="err-text">{error}</div>}
    </label>
  );
}
