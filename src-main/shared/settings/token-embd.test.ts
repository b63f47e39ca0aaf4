import { describe, expect, it } from 'vitest';
import { embdReadByRows, embdRowReadBytes } from './token-embd.js';

const t = (name: string, nbytes = 10) => ({ name, nbytes });

describe('token_embd beside a separate head', () => {
  it('is read by rows only with an output head beside it', () => {
    expect(embdReadByRows(['token_embd.weight', 'output.weight', 'blk.0.attn_q.weight'])).toBe(true);
    expect(embdReadByRows(['token_embd.weight', 'output_norm.weight'])).toBe(false);
    expect(embdReadByRows(['output.weight'])).toBe(false);
  });

  it("counts token_embd's bytes only then", () => {
    expect(embdRowReadBytes([t('token_embd.weight', 64), t('output.weight')], (x) => x.nbytes)).toBe(64);
    expect(embdRowReadBytes([t('token_embd.weight', 64), t('output_norm.weight')], (x) => x.nbytes)).toBe(0);
  });
});
