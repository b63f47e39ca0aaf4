// One line of download progress: bar, percent, bytes, rate and time left. Pure: the caller
// measures time and decides how often to draw.
import { formatBytes } from '../size.js';

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '—';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${String(r).padStart(2, '0')}` : `${m}:${String(r).padStart(2, '0')}`;
}

export interface ProgressState {
  readonly done: number;
  /** null while the size is unknown. */
  readonly total: number | null;
  /** Bytes per second over this session's transfer (resumed bytes excluded); null before any. */
  readonly rate: number | null;
}

export function progressLine(label: string, p: ProgressState, width = 30): string {
  const rate = p.rate !== null && p.rate > 0 ? `${formatBytes(p.rate)}/s` : '—/s';
  if (p.total === null || p.total <= 0) return `${label} ${formatBytes(p.done)} ${rate}`;
  const frac = Math.min(1, p.done / p.total);
  const fill = Math.round(frac * width);
  const eta = p.rate !== null && p.rate > 0 ? formatDuration((p.total - p.done) / p.rate) : '—';
  return `${label} [${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${(frac * 100).toFixed(0).padStart(3)}% ${formatBytes(p.done)} / ${formatBytes(p.total)} ${rate} ETA ${eta}`;
}
