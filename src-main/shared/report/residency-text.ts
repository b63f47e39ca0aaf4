// The human `--residency-report`: per-layer residency, engine counters, ledger.
import { formatBytes } from '../size.js';
import type { RunReport } from './report-types.js';

export function formatResidencyReport(r: RunReport): string {
  const res = r.residency;
  const lines = ['', `residency report — policy ${res.policy}`];
  lines.push('  layer  tier       bytes        resident     %');
  for (const l of res.layers) {
    const pct = l.resident_bytes === null || l.bytes === 0 ? '—' : `${Math.round((100 * l.resident_bytes) / l.bytes)}`;
    lines.push(`  ${String(l.index).padStart(5)}  ${l.tier.padEnd(9)}  ${formatBytes(l.bytes).padStart(11)}  ${formatBytes(l.resident_bytes).padStart(11)}  ${pct.padStart(3)}`);
  }
  const br = res.bytes_read_per_token;
  lines.push(`  bytes read per token   ${br === null ? `— (${res.bytes_read_per_token_reason})` : formatBytes(br)}`);
  lines.push(`  physical minimum       ${formatBytes(res.min_bytes_per_token)}  [${res.min_bytes_per_token_formula}]`);
  if (res.counters) {
    const c = res.counters;
    lines.push(`  prefetches ${c['prefetches'] ?? 0} (${formatBytes(c['prefetchBytes'] ?? 0)}), hits ${c['prefetchHits'] ?? 0}, late ${c['late'] ?? 0}, stall ${(c['stallMs'] ?? 0).toFixed(1)} ms, drops ${c['drops'] ?? 0} (${formatBytes(c['droppedBytes'] ?? 0)})`);
  }
  for (const a of res.actions.filter((x) => x.layer !== undefined)) {
    lines.push(`  ${a.kind} layer ${a.layer}: requested ${formatBytes(a.requested_bytes)}, accepted ${formatBytes(a.accepted_bytes)}, observed ${formatBytes(a.observed_bytes)}`);
  }
  lines.push('  ledger:');
  for (const e of r.ledger.entries) lines.push(`    ${e.name.padEnd(34)} ${formatBytes(e.bytes).padStart(11)}  ${e.reason ? `(${e.reason})` : e.source}`);
  for (const e of r.ledger.reconciliation) lines.push(`    ${e.name.padEnd(34)} ${formatBytes(e.bytes).padStart(11)}  ${e.formula}`);
  return lines.join('\n') + '\n';
}
