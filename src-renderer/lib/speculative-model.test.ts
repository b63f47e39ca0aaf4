import { describe, expect, it } from 'vitest';
import type { GenerationResult } from '../../src-main/shared/worker-protocol.js';
import { MAX_PASS_POINTS, ROLLING_PASSES, addTokens, bytesPerGeneratedToken, emptySpecRun, finishRun, specFigures } from './speculative-model.js';
import { sample } from './sample.test-util.js';

const result = (tokens: number, draft?: GenerationResult['draft']): GenerationResult => ({
  promptTokens: [1],
  tokens: Array.from({ length: tokens }, (_, i) => i),
  text: '',
  stopReason: 'max_tokens',
  reusedTokens: 0,
  timings: { promptMs: 1, ttftMs: 1, decodeMs: 1, promptTokS: 1, decodeTokS: 1, perTokenMs: [] },
  ...(draft ? { draft } : {}),
});

describe('speculative decoding run', () => {
  it('one point per verify pass: its acceptance, the rolling acceptance, the tokens it yielded', () => {
    // The prompt pass's token, then passes that kept 2 of 4, 0 of 4 and 3 of 3.
    let r = addTokens(emptySpecRun(), 'a', 1, []);
    r = addTokens(r, 'a', 3, [{ drafted: 4, accepted: 2 }]);
    r = addTokens(r, 'a', 5, [{ drafted: 4, accepted: 0 }, { drafted: 3, accepted: 3 }]);
    expect(r.points).toEqual([
      { pass: 1, acceptance: 0.5, rolling: 0.5, tokens: 3 },
      { pass: 2, acceptance: 0, rolling: 0.25, tokens: 1 },
      { pass: 3, acceptance: 1, rolling: 5 / 11, tokens: 4 },
    ]);
    const f = specFigures(r);
    expect(f).toMatchObject({ passes: 3, drafted: 11, accepted: 5, done: false, draftMs: null, verifyMs: null, draftShare: null });
    expect(f.acceptance).toBeCloseTo(5 / 11);
    // 9 tokens: the first from the prompt pass, 8 from 3 verify passes.
    expect(f.tokensPerPass).toBeCloseTo(8 / 3);
  });

  it('a pass that drafted nothing has no acceptance of its own', () => {
    const r = addTokens(emptySpecRun(), 'a', 1, [{ drafted: 0, accepted: 0 }]);
    expect(r.points[0]).toEqual({ pass: 1, acceptance: null, rolling: null, tokens: 1 });
    expect(specFigures(r).acceptance).toBeNull();
  });

  it(`the rolling acceptance covers the last ${ROLLING_PASSES} passes; the series keeps the last ${MAX_PASS_POINTS}`, () => {
    let r = addTokens(emptySpecRun(), 'a', 1, Array.from({ length: ROLLING_PASSES }, () => ({ drafted: 2, accepted: 0 })));
    r = addTokens(r, 'a', 1, Array.from({ length: ROLLING_PASSES }, () => ({ drafted: 2, accepted: 2 })));
    expect(r.points.at(-1)?.rolling).toBe(1);
    expect(r.points[ROLLING_PASSES]?.rolling).toBeCloseTo(1 / ROLLING_PASSES);
    r = addTokens(r, 'a', 1, Array.from({ length: MAX_PASS_POINTS }, () => ({ drafted: 1, accepted: 1 })));
    expect(r.points.length).toBe(MAX_PASS_POINTS);
    expect(r.points.at(-1)?.pass).toBe(2 * ROLLING_PASSES + MAX_PASS_POINTS);
    expect(r.passes).toBe(2 * ROLLING_PASSES + MAX_PASS_POINTS);
  });

  it("another request starts a new run; the end's own figures replace the streamed ones and add the times", () => {
    let r = addTokens(emptySpecRun(), 'a', 2, [{ drafted: 4, accepted: 1 }]);
    r = addTokens(r, 'b', 1, []);
    expect(r).toMatchObject({ requestId: 'b', passes: 0, tokens: 1, points: [] });
    r = addTokens(r, 'b', 3, [{ drafted: 2, accepted: 2 }]);
    r = finishRun(r, 'b', result(4, { drafted: 2, accepted: 2, passes: 1, draftMs: 30, verifyMs: 90 }));
    const f = specFigures(r);
    expect(f).toMatchObject({ done: true, passes: 1, drafted: 2, accepted: 2, acceptance: 1, tokensPerPass: 3, draftMs: 30, verifyMs: 90, draftShare: 0.25 });
    expect(r.points).toHaveLength(1);
    // The end of another request, or a generation without a draft, changes no figures.
    expect(finishRun(r, 'c', result(9))).toBe(r);
  });
});

describe('bytes read per generated token', () => {
  it("the read counter's growth over the tokens decoded in the last generation", () => {
    const s = [
      sample({ phase: 'load', readBytes: 0 }),
      sample({ token: 1, readBytes: 1000 }),
      sample({ token: 5, readBytes: 5000 }),
      // The next generation starts its token count again.
      sample({ token: 1, readBytes: 9000 }),
      sample({ token: 3, readBytes: 9600 }),
      sample({ token: 7, readBytes: 10800 }),
    ];
    expect(bytesPerGeneratedToken(s)).toBe(300);
  });

  it('unknown without a read counter or decoded tokens', () => {
    expect(bytesPerGeneratedToken([])).toBeNull();
    expect(bytesPerGeneratedToken([sample({ token: 1 }), sample({ token: 4 })])).toBeNull();
    expect(bytesPerGeneratedToken([sample({ token: 2, readBytes: 5 })])).toBeNull();
  });
});
