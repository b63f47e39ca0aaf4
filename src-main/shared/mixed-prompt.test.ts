import { describe, expect, it } from 'vitest';
import { mixedTokens } from './mixed-prompt.js';

/** A tokenizer that spells each character as its code, with BOS 1 when asked. */
const spell = (text: string, first: boolean) => [...(first ? [1] : []), ...[...text].map((c) => c.charCodeAt(0))];

describe('mixedTokens', () => {
  it("keeps ids where they stand and tokenizes each text in place, BOS only when a text begins the sequence (llama-server's tokenize_mixed)", () => {
    expect(mixedTokens([5, 'ab', 6], spell)).toEqual([5, 97, 98, 6]);
    expect(mixedTokens(['ab', 6, 'c'], spell)).toEqual([1, 97, 98, 6, 99]);
    expect(mixedTokens([7], spell)).toEqual([7]);
  });
});
