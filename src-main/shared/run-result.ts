// What one complete engine run produced, as data (never thrown), and how the CLI reads it.
import type { DropResult } from './cgroup/cold-start-types.js';
import type { SupervisedOutcome, UsageSample } from './cgroup/report.js';
import type { ResidencySample } from './residency-types.js';
import type { AgreementResult, GenerationResult, ModelInfo, WorkerExit } from './worker-protocol.js';

export interface RunOnceResult {
  model: ModelInfo | null;
  generation: (GenerationResult & { residency?: unknown }) | null;
  error: { code: string; message: string } | null;
  workerExit: WorkerExit | null;
  capped: SupervisedOutcome | null;
  coldStart: DropResult[] | null;
  samples: ResidencySample[];
  cgroupSamples: UsageSample[];
  startedAt: string;
  wallMs: number;
  /** From the start of the run (worker start, cold start, load) to the first generated token. */
  startToFirstTokenMs: number | null;
  /** Teacher-forced agreement with another run's tokens, where one was asked for (RunOnceOptions.teacherForce). */
  agreement?: AgreementResult | null;
}

/** The CLI exit code for a run (docs/architecture.md, "Exit codes"). */
export function runExitCode(r: RunOnceResult): number {
  if (r.capped?.status === 'oom') return 137;
  if (r.capped?.status === 'timeout') return 124;
  // The worker's own check refused the model (bad input, as when the CLI's check refuses it).
  if (r.error?.code === 'BAD_MODEL') return 2;
  if (r.error || (r.capped && r.capped.status !== 'ok')) return 1;
  return 0;
}

/** One line saying how a failed run ended. */
export function runFailureMessage(r: RunOnceResult): string | null {
  if (r.capped && r.capped.status !== 'ok') return r.capped.message;
  if (r.error) {
    const how = r.workerExit && r.workerExit.reason !== 'exit' && !r.error.message.includes(r.workerExit.message) ? ` (${r.workerExit.message})` : '';
    return `${r.error.message}${how}`;
  }
  return null;
}
