// Speculative decoding as the dashboard shows it: one point per verify pass (what the draft
// proposed and the model kept), running totals while tokens stream, the generation's own
// figures once it ends, and the bytes read per generated token from the residency samples.
// Pure; the speculative slice and panel read it.
import type { ResidencySample } from '../../src-main/shared/residency-types.js';
import type { DraftStats, GenerationResult } from '../../src-main/shared/worker-protocol.js';

/** What one verify pass drafted and kept (TokenEvent.pass). */
export interface PassCount {
  drafted: number;
  accepted: number;
}

export interface PassPoint {
  /** 1-based verify pass of this generation. */
  pass: number;
  /** accepted / drafted of this pass; null when it drafted nothing. */
  acceptance: number | null;
  /** Acceptance over the last ROLLING_PASSES passes; null while they drafted nothing. */
  rolling: number | null;
  /** Tokens this pass yielded: the accepted ones and one of the model's own. */
  tokens: number;
}

export interface SpecRun {
  requestId: string | null;
  /** The last MAX_PASS_POINTS passes. */
  points: PassPoint[];
  passes: number;
  drafted: number;
  accepted: number;
  /** Tokens generated so far (the first comes from the prompt pass, not a verify pass). */
  tokens: number;
  /** The passes the rolling acceptance is taken over. */
  recent: PassCount[];
  /** The generation's own figures, once it ended. */
  result: DraftStats | null;
}

export const MAX_PASS_POINTS = 2000;
export const ROLLING_PASSES = 16;

export function emptySpecRun(): SpecRun {
  return { requestId: null, points: [], passes: 0, drafted: 0, accepted: 0, tokens: 0, recent: [], result: null };
}

const ratio = (a: number, b: number): number | null => (b > 0 ? a / b : null);

/** Tokens of a request, with the passes they began; another request starts a new run. */
export function addTokens(run: SpecRun, requestId: string, tokens: number, passes: readonly PassCount[]): SpecRun {
  const base = run.requestId === requestId ? run : { ...emptySpecRun(), requestId };
  if (passes.length === 0) return { ...base, tokens: base.tokens + tokens };
  const points = base.points.slice();
  let recent = base.recent;
  let { passes: n, drafted, accepted } = base;
  for (const p of passes) {
    n++;
    drafted += p.drafted;
    accepted += p.accepted;
    recent = [...recent.slice(recent.length >= ROLLING_PASSES ? 1 : 0), p];
    const rd = recent.reduce((s, r) => s + r.drafted, 0);
    const ra = recent.reduce((s, r) => s + r.accepted, 0);
    points.push({ pass: n, acceptance: ratio(p.accepted, p.drafted), rolling: ratio(ra, rd), tokens: p.accepted + 1 });
  }
  return { ...base, points: points.slice(-MAX_PASS_POINTS), passes: n, drafted, accepted, tokens: base.tokens + tokens, recent };
}

/** The generation ended: its own counts replace the streamed ones (they also hold the times). */
export function finishRun(run: SpecRun, requestId: string, result: GenerationResult): SpecRun {
  if (!result.draft) return run.requestId === requestId ? { ...run, tokens: result.tokens.length } : run;
  const base = run.requestId === requestId ? run : { ...emptySpecRun(), requestId };
  const d = result.draft;
  return { ...base, passes: d.passes, drafted: d.drafted, accepted: d.accepted, tokens: result.tokens.length, result: { ...d } };
}

export interface SpecFigures {
  passes: number;
  drafted: number;
  accepted: number;
  acceptance: number | null;
  /** Generated tokens after the first per verify pass (as `ramforge run` reports it). */
  tokensPerPass: number | null;
  /** Known once the generation ended. */
  draftMs: number | null;
  verifyMs: number | null;
  /** draftMs of draftMs + verifyMs. */
  draftShare: number | null;
  done: boolean;
}

export function specFigures(run: SpecRun): SpecFigures {
  const r = run.result;
  return {
    passes: run.passes,
    drafted: run.drafted,
    accepted: run.accepted,
    acceptance: ratio(run.accepted, run.drafted),
    tokensPerPass: run.passes > 0 ? Math.max(0, run.tokens - 1) / run.passes : null,
    draftMs: r?.draftMs ?? null,
    verifyMs: r?.verifyMs ?? null,
    draftShare: r ? ratio(r.draftMs, r.draftMs + r.verifyMs) : null,
    done: r !== null,
  };
}

/**
 * Bytes read from storage per generated token during the last generation's decode: the read
 * counter's growth over the tokens decoded between its first and last decode samples. A new
 * generation restarts the token count, which is where the last one begins. null when the
 * samples carry no read counter or no tokens were decoded between them.
 */
export function bytesPerGeneratedToken(samples: readonly ResidencySample[]): number | null {
  let first: ResidencySample | null = null;
  let last: ResidencySample | null = null;
  for (const s of samples) {
    if (s.phase !== 'decode' || s.readBytes === null) continue;
    if (last !== null && s.token < last.token) first = null;
    if (first === null) first = s;
    last = s;
  }
  if (!first || !last || last.token <= first.token) return null;
  return Math.max(0, (last.readBytes! - first.readBytes!) / (last.token - first.token));
}
