// Reads the worker's own process counters from /proc (Linux). Each figure is null with a reason
// where the file is missing (another OS, a restricted container), never a silent 0.
import { readFileSync } from 'node:fs';

export interface ProcStats {
  rssBytes: number | null;
  rssPeakBytes: number | null;
  rssAnonBytes: number | null;
  rssFileBytes: number | null;
  readBytes: number | null;
  majorFaults: number | null;
  reason: string | null;
}

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

export function parseStatusKb(text: string, key: string): number | null {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Number(m[1]) * 1024 : null;
}

export function parseIoReadBytes(text: string): number | null {
  const m = /^read_bytes:\s+(\d+)/m.exec(text);
  return m ? Number(m[1]) : null;
}

/** Field 12 (majflt) of /proc/PID/stat; the comm field may hold spaces, so split after ')'. */
export function parseMajorFaults(text: string): number | null {
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const v = Number(rest[9]);
  return Number.isFinite(v) ? v : null;
}

export function readProcStats(pid: number | 'self' = 'self'): ProcStats {
  const status = read(`/proc/${pid}/status`);
  const io = read(`/proc/${pid}/io`);
  const stat = read(`/proc/${pid}/stat`);
  const missing = [!status && 'status', !io && 'io', !stat && 'stat'].filter(Boolean);
  return {
    rssBytes: status ? parseStatusKb(status, 'VmRSS') : null,
    rssPeakBytes: status ? parseStatusKb(status, 'VmHWM') : null,
    rssAnonBytes: status ? parseStatusKb(status, 'RssAnon') : null,
    rssFileBytes: status ? parseStatusKb(status, 'RssFile') : null,
    readBytes: io ? parseIoReadBytes(io) : null,
    majorFaults: stat ? parseMajorFaults(stat) : null,
    reason: missing.length ? `/proc/${pid}/{${missing.join(',')}} unreadable` : null,
  };
}
