import { describe, expect, it } from 'vitest';
import { downloadProgress } from './download-progress.js';

describe('download progress on stderr', () => {
  it('not a terminal: one line per 10%, with the rate from the first bytes on and the time left', () => {
    let t = 0;
    const lines: string[] = [];
    const bar = downloadProgress({ isTTY: false, write: (s) => lines.push(s) }, 'm.gguf', () => t);
    const total = 100 * 1024 * 1024;
    for (let done = 1024 * 1024; done <= total; done += 1024 * 1024) {
      bar.update({ done, total, sessionBytes: done });
      t += 100; // 1 MiB per 100 ms: 10 MiB/s
    }
    bar.done();
    expect(lines).toHaveLength(11);
    expect(lines[5]).toMatch(/^m\.gguf \[#+\.+\]  50% 50\.0 MiB \/ 100\.0 MiB 10\.0 MiB\/s ETA 0:05\n$/);
    expect(lines[10]).toMatch(/100% .* ETA 0:00\n$/);
  });

  it('a terminal: redrawn in place at most 10 times a second, the last state always drawn', () => {
    let t = 0;
    const out: string[] = [];
    const bar = downloadProgress({ isTTY: true, write: (s) => out.push(s) }, 'm', () => t);
    for (let i = 1; i <= 100; i++) {
      bar.update({ done: i, total: 100, sessionBytes: i });
      t += 10;
    }
    bar.done();
    expect(out.length).toBeLessThanOrEqual(12);
    expect(out.every((s) => s.startsWith('\r') || s === '\n')).toBe(true);
    expect(out[out.length - 2]).toMatch(/100%/);
    expect(out[out.length - 1]).toBe('\n');
  });
});
