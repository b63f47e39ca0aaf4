import { describe, expect, it } from 'vitest';
import { formatBytesAxis, formatBytesPerTok, formatCount, formatMs, formatPct, formatTokS } from './format.js';

describe('formatters', () => {
  it('formats rates and times with sensible precision', () => {
    expect(formatTokS(0.4321)).toBe('0.43 tok/s');
    expect(formatTokS(12.34)).toBe('12.3 tok/s');
    expect(formatTokS(250.4)).toBe('250 tok/s');
    expect(formatMs(12.34)).toBe('12.3 ms');
    expect(formatMs(2870)).toBe('2.87 s');
    expect(formatMs(12_500)).toBe('12.5 s');
  });
  it('shows a dash for unknown values instead of zero', () => {
    for (const f of [formatTokS, formatMs, formatBytesPerTok, formatPct, formatCount]) {
      expect(f(null)).toBe('—');
      expect(f(Number.NaN)).toBe('—');
    }
  });
  it('formats bytes per token, percentages and counts', () => {
    expect(formatBytesPerTok(3 * 1024 ** 3)).toBe('3.0 GiB/tok');
    expect(formatPct(0.734)).toBe('73%');
    expect(formatCount(13_015_864_320)).toBe('13.02 B');
    expect(formatCount(950)).toBe('950');
  });
  it('rounds axis labels to whole units from 10 up', () => {
    expect(formatBytesAxis(12.4 * 1024 ** 3)).toBe('12 GiB');
    expect(formatBytesAxis(1.5 * 1024 ** 3)).toBe('1.5 GiB');
  });
});
