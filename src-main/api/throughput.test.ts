import { describe, expect, it } from 'vitest';
import { Throughput } from './throughput.js';

function clocked() {
  let t = 0;
  return { tp: new Throughput(() => t, 5000), at: (ms: number) => void (t = ms) };
}

describe('Throughput', () => {
  it('is idle (nulls) before anything is generated and after a quiet window', () => {
    const { tp, at } = clocked();
    expect(tp.rates()).toEqual({ aggregateTokS: null, tokensPerPass: null });
    tp.token();
    at(6000);
    expect(tp.rates()).toEqual({ aggregateTokS: null, tokensPerPass: null });
  });

  it('tokens per second over the window, or over the time since a burst began when that is shorter (at least 1 s)', () => {
    const { tp, at } = clocked();
    for (let i = 0; i < 20; i++) (at(i * 100), tp.token());
    at(2000);
    expect(tp.rates().aggregateTokS).toBeCloseTo(10);
    for (let i = 0; i < 50; i++) (at(2000 + i * 100), tp.token());
    at(10_000);
    // The window holds the tokens of 5..7 s: 20 tokens over 5 s.
    expect(tp.rates().aggregateTokS).toBeCloseTo(4, 0);
  });

  it('tokens per weight pass: batch passes shared by several sequences, 1 without batching', () => {
    const { tp, at } = clocked();
    at(100);
    tp.token();
    expect(tp.rates().tokensPerPass).toBe(1);
    for (let i = 0; i < 4; i++) {
      tp.pass();
      for (let s = 0; s < 3; s++) tp.token();
    }
    // 13 tokens, 4 passes.
    expect(tp.rates().tokensPerPass).toBeCloseTo(13 / 4);
  });

  it('per request: what happened between a mark and now', () => {
    const { tp } = clocked();
    const m0 = tp.mark();
    expect(Throughput.tokensPerPass(m0, tp.mark())).toBeNull();
    tp.token();
    tp.token();
    expect(Throughput.tokensPerPass(m0, tp.mark())).toBe(1);
    tp.pass(2);
    tp.pass();
    tp.token();
    tp.token();
    const m1 = tp.mark();
    // busy: the sequences the passes served (/metrics' busy slots per decode).
    expect(m1).toEqual({ tokens: 4, passes: 2, busy: 3 });
    expect(Throughput.tokensPerPass(m0, m1)).toBe(2);
  });
});
