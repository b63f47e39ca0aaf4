// The bench table and its JSON form, built from one report per policy.
import { formatBytes } from '../shared/size.js';
import type { RunReport } from '../shared/report/report-types.js';

export interface BenchRow {
  policy: string;
  /** The run with the median decode speed. */
  report: RunReport;
  /** Decode tok/s of every repetition, in order. */
  decodeRuns: (number | null)[];
}

/** The row for one policy: its median run (by decode tok/s), keeping every run's speed. */
export function medianRow(policy: string, reports: RunReport[]): BenchRow {
  const speed = (r: RunReport) => r.generation?.decode_tok_s ?? -1;
  const sorted = [...reports].sort((a, b) => speed(a) - speed(b));
  const median = sorted[Math.floor((sorted.length - 1) / 2)] as RunReport;
  return { policy, report: median, decodeRuns: reports.map((r) => r.generation?.decode_tok_s ?? null) };
}

function peakBytes(r: RunReport): number | null {
  if (r.cgroup?.peak_bytes != null) return r.cgroup.peak_bytes;
  const rss = r.residency.timeline.map((s) => s.rssBytes).filter((v): v is number => v !== null);
  return rss.length ? Math.max(...rss) : null;
}

export function benchJson(model: string, capBytes: number, enforced: boolean, rows: BenchRow[]) {
  const first = rows[0]?.report.generation?.token_ids;
  return {
    model,
    cap_bytes: capBytes,
    enforced,
    results: rows.map(({ policy, report: r, decodeRuns }) => ({
      policy,
      status: r.outcome.status,
      decode_tok_s: r.generation?.decode_tok_s ?? null,
      decode_tok_s_runs: decodeRuns,
      ttft_ms: r.generation?.ttft_ms ?? null,
      bytes_read_per_token: r.residency.bytes_read_per_token,
      min_bytes_per_token: r.residency.min_bytes_per_token,
      peak_bytes: peakBytes(r),
      token_ids: r.generation?.token_ids ?? null,
      identical_tokens: first && r.generation ? JSON.stringify(first) === JSON.stringify(r.generation.token_ids) : null,
    })),
  };
}

export function benchTable(rows: BenchRow[]): string {
  const j = benchJson('', 0, false, rows).results;
  const base = j[0]?.decode_tok_s ?? null;
  const head = ['policy', 'status', 'decode tok/s', 'vs first', 'TTFT ms', 'read/token', 'minimum/token', 'peak memory', 'same tokens'];
  const body = j.map((r) => [
    r.policy,
    r.status,
    r.decode_tok_s === null ? '—' : r.decode_tok_s.toFixed(2),
    r.decode_tok_s !== null && base ? `${(r.decode_tok_s / base).toFixed(2)}×` : '—',
    r.ttft_ms === null ? '—' : r.ttft_ms.toFixed(0),
    formatBytes(r.bytes_read_per_token),
    formatBytes(r.min_bytes_per_token),
    formatBytes(r.peak_bytes),
    r.identical_tokens === null ? '—' : r.identical_tokens ? 'yes' : 'NO',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] as string).length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] as number)).join('  ');
  const runs = rows.some((r) => r.decodeRuns.length > 1)
    ? rows.map((r) => `${r.policy}: decode tok/s per run ${r.decodeRuns.map((v) => (v === null ? '—' : v.toFixed(2))).join(', ')} (median shown)`)
    : [];
  return [fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...body.map(fmt), ...runs].join('\n') + '\n';
}
