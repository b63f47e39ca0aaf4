// A byte progress bar on a stream: redrawn in place on a TTY (at most 10 times a second), or,
// when the stream is not a TTY, one line per 10% for files over 64 MiB. Quiet otherwise.
import { formatBytes } from '../shared/size.js';

export interface ProgressSink {
  readonly isTTY?: boolean;
  readonly columns?: number;
  write(s: string): unknown;
}

export const BIG_FILE_BYTES = 64 * 1024 * 1024;
const MIN_INTERVAL_MS = 100;

export function progressBar(stream: ProgressSink, label: string, now: () => number = () => performance.now()) {
  let lastDraw = -Infinity;
  let lastDecile = -1;
  let drawn = false;
  const start = now();
  const line = (written: number, total: number): string => {
    const frac = total > 0 ? Math.min(1, written / total) : 1;
    const secs = (now() - start) / 1000;
    const rate = secs > 0 ? `${formatBytes(written / secs)}/s` : '';
    const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - 60));
    const fill = Math.round(frac * width);
    return `${label} [${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${(frac * 100).toFixed(0).padStart(3)}% ${formatBytes(written)} / ${formatBytes(total)} ${rate}`;
  };
  return {
    update(written: number, total: number): void {
      if (stream.isTTY) {
        const t = now();
        if (written < total && t - lastDraw < MIN_INTERVAL_MS) return;
        lastDraw = t;
        stream.write(`\r${line(written, total)}\x1b[K`);
        drawn = true;
        return;
      }
      if (total <= BIG_FILE_BYTES) return;
      const decile = Math.floor((10 * written) / total);
      if (decile === lastDecile) return;
      lastDecile = decile;
      stream.write(`${line(written, total)}\n`);
    },
    done(): void {
      if (drawn) stream.write('\n');
    },
  };
}
