// The app's one inference worker at a time: started (after the previous one is closed), closed
// on purpose, or ended on its own — which the slot tells apart, so that a worker that dies is
// reported once and a worker closed on purpose never is. Events of a replaced worker are dropped.
import type { HostFactory, HostLike, HostStartOptions } from './host-like.js';
import type { WorkerExit } from '../shared/worker-protocol.js';

export class WorkerSlot {
  private current: HostLike | null = null;
  private readonly closing = new WeakSet<HostLike>();
  private readonly dead = new WeakSet<HostLike>();
  /** Counts stops: a worker whose start was overtaken by a stop is closed as soon as it exists. */
  private stops = 0;

  constructor(
    private readonly factory: HostFactory,
    /** The current worker ended on its own (a crash, an OOM kill): not called for one closed on purpose. */
    private readonly onUnexpectedExit: (exit: WorkerExit) => void,
  ) {}

  get host(): HostLike | null {
    return this.current;
  }

  /**
   * A new worker; the callbacks in `opts` are called only while it is the current one. The
   * previous worker is closed first.
   */
  async start(opts: HostStartOptions): Promise<HostLike> {
    await this.stop();
    const stops = this.stops;
    let h: HostLike | null = null;
    const mine = <A extends unknown[]>(f: ((...a: A) => void) | undefined) => (...a: A) => {
      if (h !== null && this.current === h) f?.(...a);
    };
    h = await this.factory({ ...opts, onSample: mine(opts.onSample), onCgroupSample: mine(opts.onCgroupSample), onServeStep: mine(opts.onServeStep) });
    const started = h;
    if (this.stops !== stops) {
      this.closing.add(started);
      started.kill();
      await started.exited;
      throw new Error('the inference worker was stopped while it started');
    }
    this.current = started;
    void started.exited.then((exit) => this.ended(started, exit));
    return started;
  }

  /**
   * Closes the current worker, and any whose start is in flight once it exists. `kill`: at once
   * (a worker loading a model finishes the load before it reads a shutdown).
   */
  async stop(kill = false): Promise<void> {
    this.stops++;
    const h = this.current;
    this.current = null;
    if (!h) return;
    this.closing.add(h);
    if (kill) {
      h.kill();
      await h.exited;
      return;
    }
    await h.close().catch(() => h.kill());
  }

  /** After an operation failed: did the worker die (then onUnexpectedExit was already called)? */
  async diedDuring(h: HostLike): Promise<boolean> {
    if (this.dead.has(h)) return true;
    await Promise.race([h.exited, new Promise((r) => setTimeout(r, 300))]);
    return this.dead.has(h);
  }

  /** Whether `h` ended on its own (not closed on purpose). */
  crashed(h: HostLike): boolean {
    return this.dead.has(h) && !this.closing.has(h);
  }

  private ended(h: HostLike, exit: WorkerExit): void {
    this.dead.add(h);
    if (this.closing.has(h) || this.current !== h) return;
    this.current = null;
    this.onUnexpectedExit(exit);
  }
}
