// Download progress on stderr: redrawn in place on a terminal (at most 10 times a second), one
// line per 10% otherwise (logs, pipes, tests). Rate and time left from this run's bytes.
import { progressLine } from '../shared/remote/progress-line.js';

export interface ProgressSink {
  readonly isTTY?: boolean;
  write(s: string): unknown;
}

export function downloadProgress(sink: ProgressSink, label: string, now: () => number = () => performance.now()) {
  // The clock starts at the first bytes received: connecting, and hashing a resumed .part, are
  // not part of the transfer rate.
  let first: { t: number; bytes: number } | null = null;
  let lastDraw = -Infinity;
  let lastDecile = -1;
  let drawn = false;
  return {
    update(p: { done: number; total: number | null; sessionBytes: number }): void {
      first ??= { t: now(), bytes: p.sessionBytes };
      const secs = (now() - first.t) / 1000;
      const moved = p.sessionBytes - first.bytes;
      const line = progressLine(label, { done: p.done, total: p.total, rate: secs > 0 && moved > 0 ? moved / secs : null });
      const finished = p.total !== null && p.done >= p.total;
      if (sink.isTTY) {
        const t = now();
        if (!finished && t - lastDraw < 100) return;
        lastDraw = t;
        sink.write(`\r${line}\x1b[K`);
        drawn = true;
        return;
      }
      const decile = p.total ? Math.floor((10 * p.done) / p.total) : -1;
      if (decile === lastDecile) return;
      lastDecile = decile;
      sink.write(line + '\n');
    },
    done(): void {
      if (drawn) sink.write('\n');
      drawn = false;
    },
  };
}

/**
 * Progress for programs (`pull --json`, the app): one JSON line per update on stderr,
 * `{"file","done","total","rate"}`, at most 4 a second, the last one always.
 */
export function jsonProgress(sink: ProgressSink, file: string, now: () => number = () => performance.now()) {
  let first: { t: number; bytes: number } | null = null;
  let last = -Infinity;
  return {
    update(p: { done: number; total: number | null; sessionBytes: number }): void {
      first ??= { t: now(), bytes: p.sessionBytes };
      const t = now();
      const finished = p.total !== null && p.done >= p.total;
      if (!finished && t - last < 250) return;
      last = t;
      const secs = (t - first.t) / 1000;
      const moved = p.sessionBytes - first.bytes;
      sink.write(JSON.stringify({ file, done: p.done, total: p.total, rate: secs > 0 && moved > 0 ? Math.round(moved / secs) : null }) + '\n');
    },
    done(): void {},
  };
}
