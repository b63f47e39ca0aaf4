// The one door to the worker's sequences: at most `capacity` generations run at once (the
// model's --parallel sequences; 1 = they take turns), the rest wait in order in a bounded queue,
// and past it API requests are refused (429) at once instead of piling up. The app's own chat
// goes through the same door (it waits, it is never refused), so the two never ask the worker
// for more sequences than it has. A waiter whose signal aborts leaves the queue at once.
// No I/O.
import { ApiError } from './errors.js';

export const DEFAULT_MAX_QUEUE = 16;

export interface GateCounts {
  capacity: number;
  active: number;
  queued: number;
  /** Requests refused because the queue was full, since the gate was made. */
  refused: number;
  /** Generations that ran and ended, since the gate was made. */
  completed: number;
}

export interface EnterOptions {
  signal?: AbortSignal;
  /** API requests: refused when the queue is full. The app's own chat always waits. */
  limited?: boolean;
}

interface Waiter {
  admit: () => void;
}

export class QueueAbortedError extends Error {
  constructor() {
    super('the request was cancelled while it waited for a sequence');
    this.name = 'AbortError';
  }
}

export class GenerationGate {
  private active = 0;
  /** The slots (0 … capacity-1) held now: each admitted generation holds the lowest free one until it leaves. */
  private readonly held = new Set<number>();
  private readonly waiters: Waiter[] = [];
  private refused = 0;
  private completed = 0;

  constructor(
    private capacity = 1,
    readonly maxQueue = DEFAULT_MAX_QUEUE,
    private readonly onChange: () => void = () => {},
  ) {}

  /** A model loaded with this many sequences (waiters are let in if there is room now). */
  setCapacity(n: number): void {
    this.capacity = Math.max(1, Math.floor(n));
    this.admitWaiting();
    this.onChange();
  }

  /** Per slot, whether a generation holds it now (llama-server's /slots `is_processing`). */
  slots(): boolean[] {
    return Array.from({ length: this.capacity }, (_, i) => this.held.has(i));
  }

  counts(): GateCounts {
    return { capacity: this.capacity, active: this.active, queued: this.waiters.length, refused: this.refused, completed: this.completed };
  }

  /** Resolves, once there is a free sequence, to the function that gives it back (call it once). */
  enter(opts: EnterOptions = {}): Promise<() => void> {
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(new QueueAbortedError());
    if (this.active < this.capacity && this.waiters.length === 0) {
      this.active++;
      const leave = this.leaver();
      this.onChange();
      return Promise.resolve(leave);
    }
    if (opts.limited && this.waiters.length >= this.maxQueue) {
      this.refused++;
      this.onChange();
      return Promise.reject(
        new ApiError(429, 'rate_limit_error', `the server is busy: ${this.active} requests running and ${this.waiters.length} waiting (the most it queues); retry later`, 'queue_full'),
      );
    }
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) this.waiters.splice(i, 1);
        this.onChange();
        reject(new QueueAbortedError());
      };
      const w: Waiter = {
        admit: () => {
          signal?.removeEventListener('abort', onAbort);
          this.active++;
          resolve(this.leaver());
        },
      };
      this.waiters.push(w);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.onChange();
    });
  }

  private leaver(): () => void {
    let left = false;
    let slot = 0;
    while (this.held.has(slot)) slot++;
    this.held.add(slot);
    return () => {
      if (left) return;
      left = true;
      this.held.delete(slot);
      this.active--;
      this.completed++;
      this.admitWaiting();
      this.onChange();
    };
  }

  private admitWaiting(): void {
    while (this.active < this.capacity && this.waiters.length > 0) (this.waiters.shift() as Waiter).admit();
  }
}
