import { describe, expect, it } from 'vitest';
import { parseIoReadBytes, parseMajorFaults, parseStatusKb } from './proc-stats.js';

describe('proc parsers (real file contents)', () => {
  it('reads VmRSS and VmHWM from /proc/PID/status', () => {
    const status = 'Name:\tnode\nVmPeak:\t 1234 kB\nVmHWM:\t   81236 kB\nVmRSS:\t   80012 kB\nRssAnon:\t   40000 kB\n';
    expect(parseStatusKb(status, 'VmRSS')).toBe(80012 * 1024);
    expect(parseStatusKb(status, 'VmHWM')).toBe(81236 * 1024);
    expect(parseStatusKb(status, 'RssFile')).toBeNull();
  });
  it('reads read_bytes from /proc/PID/io', () => {
    const io = 'rchar: 4292\nwchar: 0\nsyscr: 9\nsyscw: 0\nread_bytes: 1048576\nwrite_bytes: 0\ncancelled_write_bytes: 0\n';
    expect(parseIoReadBytes(io)).toBe(1048576);
  });
  it('reads majflt from /proc/PID/stat even when the command name has spaces', () => {
    const stat = '4242 (node worker) S 1 4242 4242 0 -1 4194560 1500 0 37 0 10 5 0 0 20 0 11 0 100 1000 200';
    expect(parseMajorFaults(stat)).toBe(37);
  });
});
