import { describe, expect, it } from 'vitest';
import { arr, field, num, numLike, snake, str } from './fields.js';

describe('defensive field readers', () => {
  it('find camelCase names in snake_case objects', () => {
    expect(snake('decodeTokS')).toBe('decode_tok_s');
    const o = { decode_tok_s: 4.5, ttftMs: 10, name: 'x' };
    expect(num(o, 'decodeTokS')).toBe(4.5);
    expect(num(o, 'ttftMs')).toBe(10);
    expect(str(o, 'title', 'name')).toBe('x');
  });
  it('return null/empty for missing or wrongly typed fields', () => {
    expect(num({ a: 'x' }, 'a')).toBeNull();
    expect(num(null, 'a')).toBeNull();
    expect(str({ a: 1 }, 'a')).toBeNull();
    expect(arr({ a: {} }, 'a')).toEqual([]);
    expect(field([1, 2], 'length')).toBeUndefined();
  });
  it('reads a number out of a provenance object', () => {
    expect(numLike({ value: 7, provenance: 'x' })).toBe(7);
    expect(numLike({ bytes: 9 })).toBe(9);
    expect(numLike({ value: null, reason: 'unknown' })).toBeNull();
  });
});
