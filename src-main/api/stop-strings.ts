// Stop strings, applied to the text as it streams: text goes out as soon as it can no longer be
// the start of a stop string; where one appears, the text before it is the last to go out and
// the caller stops the generation. A stop string split across tokens is found as well, and is
// never sent in part. Pure.

export interface StopStep {
  /** Text that may be sent now. */
  emit: string;
  /** A stop string appeared: nothing after `emit` is sent, and decoding should end. */
  stopped: boolean;
}

export class StopMatcher {
  private pending = '';
  private done = false;
  /** A stop string was found (the generation ended because of it). */
  hit = false;

  constructor(private readonly stops: readonly string[]) {}

  /** The next piece of generated text. After a stop, every further piece is dropped. */
  push(delta: string): StopStep {
    if (this.done) return { emit: '', stopped: true };
    if (this.stops.length === 0) return { emit: delta, stopped: false };
    this.pending += delta;
    let cut = -1;
    for (const s of this.stops) {
      const i = this.pending.indexOf(s);
      if (i >= 0 && (cut < 0 || i < cut)) cut = i;
    }
    if (cut >= 0) {
      const emit = this.pending.slice(0, cut);
      this.pending = '';
      this.done = true;
      this.hit = true;
      return { emit, stopped: true };
    }
    // Hold back the longest end of the text that begins some stop string.
    let hold = 0;
    for (const s of this.stops) {
      for (let k = Math.min(s.length - 1, this.pending.length); k > hold; k--) {
        if (this.pending.endsWith(s.slice(0, k))) {
          hold = k;
          break;
        }
      }
    }
    const emit = this.pending.slice(0, this.pending.length - hold);
    this.pending = this.pending.slice(this.pending.length - hold);
    return { emit, stopped: false };
  }

  /** The generation ended without a stop string: what was held back goes out. */
  flush(): string {
    if (this.done) return '';
    const rest = this.pending;
    this.pending = '';
    this.done = true;
    return rest;
  }
}
