import { describe, expect, it } from 'vitest';
import { judgeCase, namedCap, summarize, type Attempt, type CaseRecord } from './cap-verdict.js';
import { sweepCase } from './cap-cases.js';

const att = (over: Partial<Attempt>): Attempt => ({ capBytes: 100, exit: 0, oomKills: 0, failure: null, stderr: '', ms: 1, ...over });
const refusal = 'ramforge run: --ram 70.7 MiB is below the smallest cap that runs this model with ctx 256 and micro-batch 8: 98.9 MiB (--ram 103714898); with --ctx 256 --batch 32 it is 90 MiB (94371840 bytes). Nothing was loaded.';

describe('the cap named by a refusal', () => {
  it('is the one given as a --ram flag, not the size the cap was written in', () => {
    expect(namedCap(refusal)).toBe(103714898);
  });
  it("is serve's first figure in bytes when no --ram flag is given", () => {
    expect(namedCap('ramforge serve: a cap of 60.0 MiB is below the smallest cap that runs this model …: 98.9 MiB (103714898 bytes). Nothing was loaded.')).toBe(103714898);
  });
  it('is null when the refusal names none', () => expect(namedCap('ramforge run: bad flag')).toBeNull());
});

describe('the verdict of a case', () => {
  it('passes a completed run with no OOM kill', () => {
    expect(judgeCase(false, att({}), null)).toEqual({ outcome: 'ran', violation: null });
  });
  it('fails an OOM kill, a hang, a runtime failure and a serve request that failed', () => {
    expect(judgeCase(false, att({ exit: 137, oomKills: 1 }), null).violation).toMatch(/OOM-killed/);
    expect(judgeCase(false, att({ exit: 0, oomKills: 1 }), null).violation).toMatch(/OOM-killed/);
    expect(judgeCase(false, att({ exit: 124 }), null).violation).toMatch(/did not finish/);
    expect(judgeCase(false, att({ exit: null }), null).violation).toMatch(/killed by the sweep/);
    expect(judgeCase(false, att({ exit: 1, stderr: 'ramforge run: boom' }), null).violation).toMatch(/exit 1 .*boom/);
    expect(judgeCase(false, att({ exit: 1, failure: '1 of 4 requests failed' }), null).violation).toMatch(/requests failed/);
  });
  it('passes a refusal that names a larger cap at which the run completes', () => {
    const first = att({ exit: 2, stderr: refusal, capBytes: 74_000_000 });
    expect(judgeCase(true, first, att({ capBytes: 103714898 }))).toEqual({ outcome: 'refused-then-ran', violation: null });
  });
  it('fails a refusal whose named cap is not larger, is refused again, or is OOM-killed', () => {
    expect(judgeCase(true, att({ exit: 2, stderr: refusal, capBytes: 200_000_000 }), null).violation).toMatch(/not larger/);
    const first = att({ exit: 2, stderr: refusal, capBytes: 74_000_000 });
    expect(judgeCase(true, first, att({ exit: 2, stderr: refusal })).violation).toMatch(/refused again/);
    expect(judgeCase(true, first, att({ exit: 137, oomKills: 1 })).violation).toMatch(/at the named cap: OOM-killed/);
    expect(judgeCase(true, att({ exit: 2, stderr: 'bad' }), null).violation).toMatch(/without naming/);
  });
  it('fails a plan and a run that disagree', () => {
    expect(judgeCase(false, att({ exit: 2, stderr: refusal, capBytes: 1 }), att({})).violation).toMatch(/plan accepted/);
    expect(judgeCase(true, att({}), null).violation).toMatch(/plan said .* cannot run/);
  });
});

describe('the summary', () => {
  it('counts each outcome by architecture and by kind of cap', () => {
    const rec = (i: number, outcome: CaseRecord['verdict']['outcome']): CaseRecord => ({
      c: sweepCase(1, i),
      shape: '',
      capBytes: 1,
      minimumBytes: 1,
      fullBytes: 1,
      verdict: { outcome, violation: outcome === 'violation' ? 'x' : null },
      reproduce: '',
    });
    const s = summarize([rec(0, 'ran'), rec(1, 'refused-then-ran'), rec(2, 'violation')]);
    expect([s.cases, s.ran, s.refusedThenRan, s.violations]).toEqual([3, 1, 1, 1]);
    expect(Object.values(s.byArch).reduce((n, r) => n + r.cases, 0)).toBe(3);
    expect(Object.values(s.byCapKind).reduce((n, r) => n + (r?.violations ?? 0), 0)).toBe(1);
  });
});
