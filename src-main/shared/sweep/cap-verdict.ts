// The cap sweep's invariant (pure): what one case's runs must show. Under an enforced cap a run
// either completes with no OOM kill, or is refused before load (exit 2) naming a larger cap at
// which the same command completes with no OOM kill. Anything else — an OOM kill (137), a hang
// (124 or the sweep's own deadline), a runtime failure (1), a refusal that names no cap or a cap
// that is not larger, a plan that disagrees with the run — is a violation.
import type { CapKind, SweepCase } from './cap-cases.js';

export interface Attempt {
  readonly capBytes: number;
  readonly exit: number | null;
  /** OOM kills the run's cgroup counted (null where the run wrote no figures). */
  readonly oomKills: number | null;
  /** What went wrong beyond the exit code (a request that failed under `serve`). */
  readonly failure: string | null;
  readonly stderr: string;
  readonly ms: number;
}

export type CaseOutcome = 'ran' | 'refused-then-ran' | 'violation';

export interface CaseVerdict {
  readonly outcome: CaseOutcome;
  readonly violation: string | null;
}

/** The cap a refusal names: `--ram N` (run, bench), else the first `(N bytes)` (serve). */
export function namedCap(stderr: string): number | null {
  const m = /\(--ram (\d+)\)/.exec(stderr) ?? /\((\d+) bytes\)/.exec(stderr);
  return m ? Number(m[1]) : null;
}

function completed(a: Attempt): string | null {
  if (a.exit === 0 && (a.oomKills ?? 0) === 0 && a.failure === null) return null;
  if (a.exit === 137 || (a.oomKills ?? 0) > 0) return `OOM-killed under an enforced cap of ${a.capBytes} bytes`;
  if (a.failure !== null) return `${a.failure} under a cap of ${a.capBytes} bytes`;
  if (a.exit === 124 || a.exit === null) return `did not finish in time under a cap of ${a.capBytes} bytes (exit ${a.exit ?? 'none: killed by the sweep'})`;
  return `exit ${a.exit} under a cap of ${a.capBytes} bytes: ${lastLine(a.stderr)}`;
}

function lastLine(s: string): string {
  const lines = s.trim().split('\n').filter((l) => l.trim() !== '' && !l.startsWith('loading'));
  return (lines[lines.length - 1] ?? '').slice(0, 300);
}

/**
 * The verdict of a case: `first` at the case's cap, `second` at the cap the refusal named (when
 * refused), and whether the plan at the case's cap said it cannot run.
 */
export function judgeCase(planCannotRun: boolean, first: Attempt, second: Attempt | null): CaseVerdict {
  if (first.exit === 2) {
    const named = namedCap(first.stderr);
    if (named === null) return violation(`refused without naming a cap: ${lastLine(first.stderr)}`);
    if (named <= first.capBytes) return violation(`refused at ${first.capBytes} bytes naming a cap that is not larger (${named})`);
    if (!planCannotRun) return violation(`plan accepted ${first.capBytes} bytes but the run refused it: ${lastLine(first.stderr)}`);
    if (!second) return violation('refused, and the named cap was not tried');
    const bad = second.exit === 2 ? `refused again at the cap it named (${named}): ${lastLine(second.stderr)}` : completed(second);
    return bad === null ? { outcome: 'refused-then-ran', violation: null } : violation(`at the named cap: ${bad}`);
  }
  const bad = completed(first);
  if (bad !== null) return violation(bad);
  if (planCannotRun) return violation(`plan said ${first.capBytes} bytes cannot run, but the run was not refused`);
  return { outcome: 'ran', violation: null };
}

const violation = (why: string): CaseVerdict => ({ outcome: 'violation', violation: why });

export interface CaseRecord {
  readonly c: SweepCase;
  readonly shape: string;
  readonly capBytes: number;
  readonly minimumBytes: number;
  readonly fullBytes: number;
  readonly verdict: CaseVerdict;
  readonly reproduce: string;
}

export interface SweepSummary {
  readonly cases: number;
  readonly ran: number;
  readonly refusedThenRan: number;
  readonly violations: number;
  readonly byArch: Record<string, { cases: number; ran: number; refused: number; violations: number }>;
  readonly byCapKind: Partial<Record<CapKind, { cases: number; ran: number; refused: number; violations: number }>>;
  readonly throughServe: number;
}

export function summarize(records: readonly CaseRecord[]): SweepSummary {
  const row = () => ({ cases: 0, ran: 0, refused: 0, violations: 0 });
  const byArch: SweepSummary['byArch'] = {};
  const byCapKind: SweepSummary['byCapKind'] = {};
  for (const r of records) {
    for (const b of [(byArch[r.c.model.arch] ??= row()), (byCapKind[r.c.cap.kind] ??= row())]) {
      b.cases++;
      if (r.verdict.outcome === 'ran') b.ran++;
      else if (r.verdict.outcome === 'refused-then-ran') b.refused++;
      else b.violations++;
    }
  }
  const count = (o: CaseOutcome) => records.filter((r) => r.verdict.outcome === o).length;
  return { cases: records.length, ran: count('ran'), refusedThenRan: count('refused-then-ran'), violations: count('violation'), byArch, byCapKind, throughServe: records.filter((r) => r.c.serve).length };
}
