// Whether a run with layers on RPC nodes is still moving. Pure: the worker's host feeds it the
// worker's tokens and samples with its own clock, and asks whether the run is overdue.
//
// Progress is a token, or a sample whose counters moved: a node's bytes sent or received, the
// decode's wait on a node (the samples carry it per node; it grows when a remote step returns),
// the worker's reads from storage (a local streamed layer). A step is the time between two
// signs of progress; a remote step ends in one (its reply moves the node's counters), so the
// longest step measured bounds every remote step seen. While the worker's decode is blocked on a
// frozen node nothing moves at all.
import type { ResidencySample } from '../residency-types.js';
import { RPC_PROMPT_STEP_MS, RPC_STEP_MARGIN, RPC_STEP_MIN_MS } from '../settings/run-settings.js';

export interface Overdue {
  /** Since the last sign of progress. */
  idleMs: number;
  deadlineMs: number;
  /** The longest decode step measured (null: none yet, the prompt's deadline applied). */
  stepMs: number | null;
}

/** What of a sample moves when the run does. */
function movement(s: ResidencySample): string {
  const nodes = s.network?.nodes.map((n) => `${n.bytesSent}/${n.bytesReceived}/${n.waitMs}`) ?? [];
  return `${s.token};${s.readBytes ?? ''};${nodes.join(',')}`;
}

export class RemoteStepWatch {
  /** Tokens so far of each generation in flight (several with the batch server). */
  private running = new Map<number, number>();
  private lastProgress: number;
  private lastMovement = '';
  private decodeStep: number | null = null;
  private promptStep = 0;

  constructor(now: number) {
    this.lastProgress = now;
  }

  begin(id: number, now: number): void {
    if (this.running.size === 0) this.lastProgress = now;
    this.running.set(id, 0);
  }

  end(id: number): void {
    this.running.delete(id);
  }

  token(id: number, now: number): void {
    this.progress(now);
    const n = this.running.get(id);
    if (n !== undefined) this.running.set(id, n + 1);
  }

  sample(s: ResidencySample, now: number): void {
    const m = movement(s);
    if (m === this.lastMovement) return;
    this.lastMovement = m;
    this.progress(now);
  }

  /** Null while nothing runs or the run moves within its deadline. */
  overdue(now: number): Overdue | null {
    if (this.running.size === 0) return null;
    const idleMs = now - this.lastProgress;
    const deadlineMs = this.decoding() && this.decodeStep !== null ? Math.max(RPC_STEP_MIN_MS, RPC_STEP_MARGIN * this.decodeStep) : Math.max(RPC_PROMPT_STEP_MS, RPC_STEP_MARGIN * this.promptStep);
    return idleMs > deadlineMs ? { idleMs, deadlineMs, stepMs: this.decodeStep } : null;
  }

  /** Every generation in flight is past its prompt and first token: each step is one token's. */
  private decoding(): boolean {
    for (const n of this.running.values()) if (n < 2) return false;
    return true;
  }

  private progress(now: number): void {
    const step = now - this.lastProgress;
    this.lastProgress = now;
    if (this.running.size === 0) return;
    if (this.decoding()) this.decodeStep = Math.max(this.decodeStep ?? 0, step);
    else this.promptStep = Math.max(this.promptStep, step);
  }
}
