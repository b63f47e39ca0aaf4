// Value formatters shared by every view and chart. Bytes come from the shared (pure) helper.
import { formatBytes } from '../../src-main/shared/size.js';

export { formatBytes };

const dash = '—';

function ok(v: number | null | undefined): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

export function formatTokS(v: number | null | undefined): string {
  if (!ok(v)) return dash;
  return `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)} tok/s`;
}

export function formatMs(v: number | null | undefined): string {
  if (!ok(v)) return dash;
  if (Math.abs(v) >= 10_000) return `${(v / 1000).toFixed(1)} s`;
  if (Math.abs(v) >= 1000) return `${(v / 1000).toFixed(2)} s`;
  return `${v.toFixed(v >= 100 ? 0 : 1)} ms`;
}

export function formatBytesPerTok(v: number | null | undefined): string {
  return ok(v) ? `${formatBytes(v)}/tok` : dash;
}

export function formatRate(v: number | null | undefined): string {
  return ok(v) ? `${formatBytes(v)}/s` : dash;
}

export function formatPct(v: number | null | undefined, digits = 0): string {
  return ok(v) ? `${(v * 100).toFixed(digits)}%` : dash;
}

export function formatCount(v: number | null | undefined): string {
  if (!ok(v)) return dash;
  if (Math.abs(v) >= 1e9) return `${(v / 1e9).toFixed(2)} B`;
  if (Math.abs(v) >= 1e6) return `${(v / 1e6).toFixed(1)} M`;
  if (Math.abs(v) >= 1e4) return `${(v / 1e3).toFixed(1)} K`;
  return String(Math.round(v));
}

/** Short byte label for chart axes: whole units from 10 up (e.g. "12 GiB", "1.5 GiB"). */
export function formatBytesAxis(v: number): string {
  const one = formatBytes(v, 1);
  const m = /^(-?\d+(?:\.\d+)?) (.*)$/.exec(one);
  if (!m) return one;
  const n = Number(m[1]);
  return Math.abs(n) >= 10 ? `${Math.round(n)} ${m[2]}` : one;
}
