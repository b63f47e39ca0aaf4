import { describe, expect, it } from 'vitest';
import { MAX_NESTING, nestedDeeper } from './http-body.js';

describe('nestedDeeper', () => {
  it('counts brackets outside strings only', () => {
    expect(nestedDeeper('{"a":[{"b":[1]}]}', 4)).toBe(false);
    expect(nestedDeeper('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(nestedDeeper(JSON.stringify({ s: '[[[[[[[[[[{{{{{{{{' }), 2)).toBe(false);
    expect(nestedDeeper(JSON.stringify({ s: 'quote \\" then [[[[[' }), 2)).toBe(false);
  });

  it('a realistic chat request is far from the limit; a million-deep array is refused in one pass', () => {
    const chat = { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }], stream_options: { include_usage: true } };
    expect(nestedDeeper(JSON.stringify(chat), MAX_NESTING)).toBe(false);
    expect(nestedDeeper('['.repeat(1_000_000) + ']'.repeat(1_000_000), MAX_NESTING)).toBe(true);
  });
});
