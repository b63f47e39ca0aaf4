import { describe, expect, it } from 'vitest';
import { BIG_FILE_BYTES, progressBar } from './progress-bar.js';

function sink(isTTY: boolean) {
  const out: string[] = [];
  return { out, stream: { isTTY, columns: 100, write: (s: string) => out.push(s) } };
}

describe('progressBar', () => {
  it('redraws in place on a TTY at most 10 times a second, always drawing the end', () => {
    const { out, stream } = sink(true);
    let t = 0;
    const bar = progressBar(stream, 'synth', () => t);
    for (let i = 1; i <= 100; i++) {
      t += 10; // 100 updates over 1 s
      bar.update(i, 100);
    }
    bar.done();
    expect(out.length).toBeGreaterThanOrEqual(10);
    expect(out.length).toBeLessThanOrEqual(12);
    expect(out.every((s, i) => (i === out.length - 1 ? s === '\n' : s.startsWith('\r')))).toBe(true);
    expect(out.at(-2)).toContain('100%');
  });

  it('off a TTY: silent for small files, one line per 10% for big ones', () => {
    const small = sink(false);
    const a = progressBar(small.stream, 'synth');
    for (let i = 0; i <= 10; i++) a.update(i * 1000, 10_000);
    a.done();
    expect(small.out).toEqual([]);

    const big = sink(false);
    const total = BIG_FILE_BYTES * 2;
    const b = progressBar(big.stream, 'synth');
    for (let i = 0; i <= 1000; i++) b.update(Math.floor((i * total) / 1000), total);
    b.done();
    expect(big.out.length).toBe(11);
    expect(big.out.every((s) => s.endsWith('\n') && !s.includes('\r'))).toBe(true);
  });
});
