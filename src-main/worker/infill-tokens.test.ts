import { describe, expect, it } from 'vitest';
import { fimMissing, infillTokens, type FimVocab } from './infill-tokens.js';
import { WorkerError } from './worker-error.js';

// A tokenizer of one id per character (its code), so each part is seen where it lands.
const tokenize = (t: string) => Array.from(t, (c) => c.charCodeAt(0));
const text = (ids: number[]) => ids.map((i) => (i >= 32 || i === 10 ? String.fromCharCode(i) : `<${i}>`)).join('');
const PRE = 1, SUF = 2, MID = 3, REP = 4, SEP = 5, BOS = 6;

describe('infillTokens', () => {
  it("builds [FIM_PRE] prefix prompt [FIM_SUF] suffix [FIM_MID], the vocabulary's BOS first, extra chunks before it", () => {
    const v: FimVocab = { fim: { pre: PRE, suf: SUF, mid: MID, rep: -1, sep: -1 }, bos: BOS, addBos: true };
    expect(text(infillTokens(v, tokenize, { prefix: 'a(', suffix: ')', extra: [] }, 'x'))).toBe('<6><1>a(x<2>)<3>');
    expect(text(infillTokens({ ...v, addBos: false }, tokenize, { prefix: 'p', suffix: 's', extra: [{ text: 'E' }] }, ''))).toBe('\n\n--- snippet ---\n\nE<1>p<2>s<3>');
  });

  it('uses the repo-level pattern where the vocabulary has FIM_REP and FIM_SEP', () => {
    const v: FimVocab = { fim: { pre: PRE, suf: SUF, mid: MID, rep: REP, sep: SEP }, bos: BOS, addBos: false };
    const out = text(infillTokens(v, tokenize, { prefix: 'p', suffix: 's', extra: [{ filename: 'u.py', text: 'E' }, { text: 'F' }] }, ''));
    expect(out).toBe('<4>myproject\n<5>u.py\nE<5>tmp\nF<5>filename\n<1>p<2>s<3>');
  });

  it("refuses a vocabulary without the three tokens in llama-server's words", () => {
    const v: FimVocab = { fim: { pre: PRE, suf: -1, mid: -1, rep: -1, sep: -1 }, bos: -1, addBos: false };
    expect(fimMissing(v)).toBe('Infill is not supported by this model: suffix token is missing. middle token is missing. ');
    expect(() => infillTokens(v, tokenize, { prefix: '', suffix: '', extra: [] }, '')).toThrow(WorkerError);
  });
});
