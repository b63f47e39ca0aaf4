// What the server produces, over a sliding window: generated tokens per second over all
// requests, and generated tokens per weight pass of the batch server (each pass reads every
// streamed weight once, whether it serves one sequence or eight; the pass that reads a prompt
// also yields its first token). Running totals let one request learn what happened while it
// ran. No I/O: the clock is passed in.

export const WINDOW_MS = 5000;

export interface Totals {
  tokens: number;
  /** Weight passes of the batch server (each one llama_decode). */
  passes: number;
  /** The sequences those passes served, summed over the passes (llama-server's busy slots per decode, times the decodes). */
  busy: number;
}

export interface Rates {
  /** null when nothing was generated in the window. */
  aggregateTokS: number | null;
  /** 1 without batching (each token is its own pass); null when idle. */
  tokensPerPass: number | null;
}

export class Throughput {
  private readonly tokenTimes: number[] = [];
  private readonly passTimes: number[] = [];
  private firstActivity: number | null = null;
  private readonly totals: Totals = { tokens: 0, passes: 0, busy: 0 };

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly windowMs = WINDOW_MS,
  ) {}

  token(): void {
    const t = this.now();
    this.prune(t);
    this.firstActivity ??= t;
    this.tokenTimes.push(t);
    this.totals.tokens++;
  }

  /** One weight pass of the batch server, serving `sequences` of them. */
  pass(sequences = 1): void {
    const t = this.now();
    this.prune(t);
    this.firstActivity ??= t;
    this.passTimes.push(t);
    this.totals.passes++;
    this.totals.busy += sequences;
  }

  mark(): Totals {
    return { ...this.totals };
  }

  /** Tokens per pass between a mark and now: null when nothing was generated; 1 when there were no batch passes. */
  static tokensPerPass(from: Totals, to: Totals): number | null {
    const passes = to.passes - from.passes;
    const tokens = to.tokens - from.tokens;
    if (tokens === 0) return null;
    return passes > 0 ? tokens / passes : 1;
  }

  rates(): Rates {
    const t = this.now();
    this.prune(t);
    if (this.tokenTimes.length === 0) return { aggregateTokS: null, tokensPerPass: null };
    // While the server has been busy for less than the window, the rate is over the time it has been.
    const spanMs = Math.max(1000, Math.min(this.windowMs, t - (this.firstActivity ?? t)));
    const aggregateTokS = (this.tokenTimes.length * 1000) / spanMs;
    const tokensPerPass = this.passTimes.length > 0 ? this.tokenTimes.length / this.passTimes.length : 1;
    return { aggregateTokS, tokensPerPass };
  }

  private prune(t: number): void {
    const from = t - this.windowMs;
    let i = 0;
    while (i < this.tokenTimes.length && (this.tokenTimes[i] as number) < from) i++;
    if (i > 0) this.tokenTimes.splice(0, i);
    let j = 0;
    while (j < this.passTimes.length && (this.passTimes[j] as number) < from) j++;
    if (j > 0) this.passTimes.splice(0, j);
    // After a quiet window the next burst is measured from its own start.
    if (this.tokenTimes.length === 0 && this.passTimes.length === 0) this.firstActivity = null;
  }
}
