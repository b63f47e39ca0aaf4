// How the speculative decoder chooses how many tokens to draft, on pass histories described
// here (the native chooser itself, through the test-only addon's draftLengthRun): no clock, so
// each case is exact.
// A draft that is never accepted is turned down to the probes, also when the machine was busy
// while some batch sizes were measured; one that is always accepted drafts all it may; a
// streamed pass (the same cost at any size) makes even a so-so draft pay.
import { describe, expect, it } from 'vitest';
import type { NativeDraftPass } from './addon.js';
import { loadTestSeams } from './test-seams.test-util.js';

const addon = loadTestSeams();

interface World {
  /** Verify time of a pass of n tokens on a quiet machine. */
  verifyMs: (n: number) => number;
  draftMsPerToken: number;
  /** How many of the k drafted the target keeps. */
  accepts: (k: number, i: number) => number;
  /** How much slower pass i, drafting k, runs (another process holding the CPU). */
  load?: (i: number, k: number) => number;
}

function run(world: World, passes: number, min = 0, max = 8): number[] {
  return addon.draftLengthRun(min, max, passes, (k, i): NativeDraftPass => {
    const slow = world.load?.(i, k) ?? 1;
    return {
      drafted: k,
      accepted: world.accepts(k, i),
      draftMs: k * world.draftMsPerToken * slow,
      verifyMs: world.verifyMs(k + 1) * slow,
    };
  });
}

const drafting = (ks: number[]) => ks.filter((k) => k > 0).length;
// A draft as large as its target, in RAM: each drafted token costs about a pass.
const NEVER: World = { verifyMs: (n) => 2 + 0.4 * n, draftMsPerToken: 2, accepts: () => 0 };

describe('draft length (the chooser of k)', () => {
  it('a draft that is never accepted drafts only on the probes once its acceptance is known', () => {
    const ks = run(NEVER, 96);
    expect(ks[0]).toBe(8);
    // After the first passes, one probe of one token every kProbeEvery (16) passes.
    const late = ks.slice(32);
    expect(drafting(late)).toBeLessThanOrEqual(Math.ceil(late.length / 16));
    expect(Math.max(...late)).toBeLessThanOrEqual(1);
  });

  it('a busy spell while only 1-token passes ran does not lock drafting in after it ends', () => {
    // The spell covers the 1-token passes of the first 40 and none of the drafting ones: the
    // slow 1-token samples stay the newest of their size for as long as every pass drafts, and
    // a quiet 2-token pass looks far cheaper than them.
    const ks = run({ ...NEVER, load: (i, k) => (i < 40 && k === 0 ? 10 : 1) }, 160);
    const late = ks.slice(64);
    expect(drafting(late)).toBeLessThanOrEqual(Math.ceil(late.length / 16));
  });

  it('a draft that is always accepted, with cheap drafted tokens, drafts the most it may', () => {
    const ks = run({ verifyMs: (n) => 20 + 0.5 * n, draftMsPerToken: 1, accepts: (k) => k }, 48, 0, 6);
    expect(ks.slice(16).every((k) => k === 6)).toBe(true);
  });

  it('a streamed pass costs the same at any size: a draft kept 60% of the time pays', () => {
    let n = 0;
    // Every other token kept on average, deterministically: 3 of each 5 drafted.
    const world: World = { verifyMs: () => 100, draftMsPerToken: 3, accepts: (k) => Math.min(k, [1, 0, 1, 1, 0][n++ % 5]! * k) };
    const ks = run(world, 64);
    expect(drafting(ks.slice(16))).toBe(48);
  });

  it('min is kept even when drafting does not pay', () => {
    const ks = run(NEVER, 48, 2, 8);
    expect(ks.every((k) => k >= 2)).toBe(true);
  });

  it('bad arguments are a BAD_ARGUMENT error, not a crash', () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as { code?: string }).code;
      }
      return undefined;
    };
    expect(code(() => addon.draftLengthRun(3, 2, 4, () => ({ drafted: 0, accepted: 0, draftMs: 0, verifyMs: 1 })))).toBe('BAD_ARGUMENT');
    expect(code(() => addon.draftLengthRun(0, 4, 4, (k) => ({ drafted: k + 1, accepted: 0, draftMs: 0, verifyMs: 1 })))).toBe('BAD_ARGUMENT');
    expect(code(() => addon.draftLengthRun(0, 4, 4, () => null as unknown as NativeDraftPass))).toBe('BAD_ARGUMENT');
    expect(() =>
      addon.draftLengthRun(0, 4, 4, () => {
        throw new Error('from the callback');
      }),
    ).toThrow('from the callback');
  });
});
