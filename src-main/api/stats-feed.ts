// The server's figures for the dashboard (ServerStats): requests running and waiting from the
// gate, tokens per second and per weight pass from the throughput window. Sent about once a
// second while the API listens and at once whenever the request counts change.
import type { ServerStats } from '../shared/server-stats.js';
import type { GenerationGate } from './gate.js';
import type { Throughput, Totals } from './throughput.js';

export const STATS_INTERVAL_MS = 1000;

export class ServerStatsFeed {
  private url: string | null = null;
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly gate: () => GenerationGate,
    private readonly throughput: Throughput,
    private readonly emit: (s: ServerStats) => void,
  ) {}

  snapshot(): ServerStats {
    const c = this.gate().counts();
    const r = this.throughput.rates();
    return {
      url: this.url,
      activeRequests: c.active,
      sequences: c.capacity,
      queued: c.queued,
      refused: c.refused,
      aggregateTokS: r.aggregateTokS,
      tokensPerPass: r.tokensPerPass,
      completed: c.completed,
    };
  }

  /** The batch server's passes since the start (/metrics' decode counters). */
  passes(): Pick<Totals, 'passes' | 'busy'> {
    const t = this.throughput.mark();
    return { passes: t.passes, busy: t.busy };
  }

  /** The API listens at `url`: figures every second from now on. */
  start(url: string): void {
    this.url = url;
    if (!this.timer) {
      this.timer = setInterval(() => this.send(), STATS_INTERVAL_MS);
      // The feed never keeps a process alive on its own.
      this.timer.unref?.();
    }
    this.send();
  }

  /** The API stopped: one last message (url null), then silence. */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const was = this.url;
    this.url = null;
    if (was !== null) this.send();
  }

  /** The request counts changed. */
  changed(): void {
    if (this.url !== null) this.send();
  }

  private send(): void {
    try {
      this.emit(this.snapshot());
    } catch {
      // A listener's failure is its own.
    }
  }
}
