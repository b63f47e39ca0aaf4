import { describe, expect, it } from 'vitest';
import { intFieldText, parseIntField } from './int-field.js';

const ctx = { min: 16, max: 1 << 20, auto: true };

describe('parseIntField', () => {
  it('commits a whole number within the bounds', () => {
    expect(parseIntField(' 2048 ', ctx)).toEqual({ ok: true, value: 2048 });
  });
  it('leaves a half-typed number below the minimum uncommitted instead of clamping it', () => {
    expect(parseIntField('2', ctx)).toEqual({ ok: false, error: '16..1048576' });
  });
  it('reads empty text as auto (null) where auto is allowed, else as missing', () => {
    expect(parseIntField('', ctx)).toEqual({ ok: true, value: null });
    expect(parseIntField('', { min: 0, max: 16, auto: false })).toEqual({ ok: false, error: 'required' });
  });
  it('refuses fractions, signs and exponents', () => {
    for (const t of ['1.5', '-3', '1e3']) expect(parseIntField(t, ctx).ok).toBe(false);
  });
  it('gives auto an empty field', () => {
    expect(intFieldText(null)).toBe('');
    expect(intFieldText(4)).toBe('4');
  });
});
