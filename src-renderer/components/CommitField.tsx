// A text field committed on Enter or on leaving it (a path, a number typed in full), not on
// every keystroke: the text is the user's until then, and follows the value set elsewhere.
import { useEffect, useState } from 'react';

interface Props {
  label: string;
  title: string;
  testId: string;
  placeholder: string;
  /** The value as text ('' for none). */
  value: string;
  wide?: boolean;
  inputMode?: 'text' | 'decimal';
  commit(text: string): void;
}

export function CommitField({ label, title, testId, placeholder, value, wide = false, inputMode = 'text', commit }: Props) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  return (
    <label className={wide ? 'field wide' : 'field'} title={title}>
      <span>{label}</span>
      <input
        type="text"
        inputMode={inputMode}
        data-testid={testId}
        placeholder={placeholder}
        value={text}
        onChange={(e) => setText(e.currentTarget.value)}
        onBlur={(e) => commit(e.currentTarget.value)}
        onKeyDown={(e) => e.key === 'Enter' && commit(e.currentTarget.value)}
      />
    </label>
  );
}
