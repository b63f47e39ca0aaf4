// Side-by-side figures of two or more reports.
import type { ReportInfo } from './report-model.js';
import { meanBytesPerToken, peakOf } from './series.js';

export interface CompareRow {
  label: string;
  policy: string | null;
  status: string | null;
  tokS: number | null;
  ttftMs: number | null;
  bytesPerToken: number | null;
  minBytesPerToken: number | null;
  peakBytes: number | null;
  tokens: number;
}

export function compareRow(r: ReportInfo, label: string): CompareRow {
  return {
    label,
    policy: r.policy,
    status: r.status,
    tokS: r.generation?.decodeTokS ?? null,
    ttftMs: r.generation?.ttftMs ?? null,
    bytesPerToken: r.readBytesPerToken ?? meanBytesPerToken(r.timeline),
    minBytesPerToken: r.minBytesPerToken,
    peakBytes: r.peakBytes ?? peakOf(r.timeline, 'rssBytes'),
    tokens: r.generation?.tokenIds.length ?? 0,
  };
}

/** True/false when every report (two or more) carries token ids; null when there is nothing to compare. */
export function tokensIdentical(reports: readonly ReportInfo[]): boolean | null {
  const seqs = reports.map((r) => r.generation?.tokenIds ?? []);
  if (seqs.length < 2 || seqs.some((t) => t.length === 0)) return null;
  const [first, ...rest] = seqs;
  return rest.every((s) => s.length === first!.length && s.every((t, i) => t === first![i]));
}

/** Index of the first token where the runs diverge (null when identical or not comparable). */
export function firstDivergence(reports: readonly ReportInfo[]): number | null {
  const seqs = reports.map((r) => r.generation?.tokenIds ?? []);
  if (seqs.length < 2) return null;
  const n = Math.max(...seqs.map((s) => s.length));
  for (let i = 0; i < n; i++) {
    const t = seqs[0]![i];
    if (seqs.some((s) => s[i] !== t)) return i;
  }
  return null;
}
