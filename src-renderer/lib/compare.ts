// Side-by-side figures of two or more reports.
import type { ReportInfo } from './report-model.js';
import { meanBytesPerToken, peakOf } from './series.js';
import { readOverFloor } from './stream-figures.js';

export interface CompareRow {
  label: string;
  policy: string | null;
  status: string | null;
  tokS: number | null;
  ttftMs: number | null;
  bytesPerToken: number | null;
  /** No schedule reads less per token under the run's cap. */
  floorBytesPerToken: number | null;
  /** bytesPerToken / floor: 1 is the best any schedule can do. */
  readOverFloor: number | null;
  limitHitsDecode: number | null;
  /** Lowest resident share (0..1) of the locked weights during decode. */
  pinnedResidentMin: number | null;
  peakBytes: number | null;
  tokens: number;
}

export function compareRow(r: ReportInfo, label: string): CompareRow {
  const bytesPerToken = r.readBytesPerToken ?? meanBytesPerToken(r.timeline);
  const floor = r.figures.floor.value;
  return {
    label,
    policy: r.policy,
    status: r.status,
    tokS: r.generation?.decodeTokS ?? null,
    ttftMs: r.generation?.ttftMs ?? null,
    bytesPerToken,
    floorBytesPerToken: floor,
    readOverFloor: readOverFloor(bytesPerToken, floor),
    limitHitsDecode: r.figures.limitHits.value,
    pinnedResidentMin: r.figures.pinnedResidentMin.value,
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
