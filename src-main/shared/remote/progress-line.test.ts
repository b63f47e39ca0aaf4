import { describe, expect, it } from 'vitest';
import { formatDuration, progressLine } from './progress-line.js';

describe('download progress line', () => {
  it('bar, percent, bytes, rate and time left', () => {
    const line = progressLine('m.gguf', { done: 512 * 1024 ** 2, total: 2 * 1024 ** 3, rate: 64 * 1024 ** 2 }, 10);
    expect(line).toBe('m.gguf [###.......]  25% 512.0 MiB / 2.0 GiB 64.0 MiB/s ETA 0:24');
  });
  it('unknown size or rate', () => {
    expect(progressLine('m', { done: 10, total: null, rate: null })).toBe('m 10 B —/s');
    expect(progressLine('m', { done: 0, total: 100, rate: null }, 4)).toBe('m [....]   0% 0 B / 100 B —/s ETA —');
  });
  it('durations', () => {
    expect(formatDuration(3725)).toBe('1:02:05');
    expect(formatDuration(59.6)).toBe('1:00');
  });
});
