// The human `--residency-report`: per-layer residency, engine counters, ledger.
import { formatBytes } from '../size.js';
import type { RunReport } from './report-types.js';
import { rowFromReport, specsFromReport } from './residency-rows.js';
import type { ResidencyRow } from '../residency/residency-model.js';

/** Every row of the residency model: each layer and each tensor outside the layers, every copy by tier. */
export function residencyTable(r: RunReport): string[] | null {
  const res = r.residency;
  const specs = specsFromReport(res.layers, res.outside);
  if (!specs) return null;
  const figures = [...res.layers, ...(res.outside ?? [])];
  // specsFromReport gave rows only where every layer carries its figures.
  const rows: ResidencyRow[] = specs.map((s, i) => rowFromReport(s, { held: figures[i]!.held!, read_bytes_per_token: figures[i]!.read_bytes_per_token ?? null }));
  const b = (v: number | null) => formatBytes(v).padStart(10);
  const lines = ['  row                tier       bytes       vram      nodes     locked    experts     mapped   held %  read/token'];
  for (const row of rows) {
    const pct = row.bytes === 0 ? '—' : `${Math.round((100 * row.heldBytes) / row.bytes)}`;
    const read = row.readBytesPerToken === null ? '—' : formatBytes(row.readBytesPerToken);
    lines.push(`  ${row.name.padEnd(17)}  ${(row.tier ?? '—').padEnd(8)} ${b(row.bytes)} ${b(row.held.vram)} ${b(row.held.remote)} ${b(row.held.locked)} ${b(row.held.experts)} ${b(row.held.mapped)}  ${pct.padStart(6)}  ${read.padStart(10)}`);
  }
  return lines;
}

export function formatResidencyReport(r: RunReport): string {
  const res = r.residency;
  const lines = ['', `residency report — policy ${res.policy}`];
  const table = residencyTable(r);
  if (table) lines.push(...table);
  // A report from an older worker: the mapping's resident pages only.
  else lines.push('  layer  tier       bytes        resident     %');
  for (const l of table ? [] : res.layers) {
    const pct = l.resident_bytes === null || l.bytes === 0 ? '—' : `${Math.round((100 * l.resident_bytes) / l.bytes)}`;
    lines.push(`  ${String(l.index).padStart(5)}  ${l.tier.padEnd(9)}  ${formatBytes(l.bytes).padStart(11)}  ${formatBytes(l.resident_bytes).padStart(11)}  ${pct.padStart(3)}`);
  }
  const br = res.bytes_read_per_token;
  lines.push(`  bytes read per token   ${br === null ? `— (${res.bytes_read_per_token_reason})` : formatBytes(br)}`);
  lines.push(`  floor per token        ${res.floor_bytes_per_token === null ? '—' : formatBytes(res.floor_bytes_per_token)}  [${res.floor_bytes_per_token_note}]`);
  lines.push(`  limit hits in decode   ${res.limit_hits_decode ?? '—'}  [${res.limit_hits_decode_note}]`);
  lines.push(`  locked weights, min    ${res.pinned_resident_min === null ? '—' : `${(100 * res.pinned_resident_min).toFixed(1)} % resident`}  [${res.pinned_resident_min_note}]`);
  lines.push(`  read rate in decode    ${res.read_rate_bytes_per_s === null ? '—' : `${formatBytes(res.read_rate_bytes_per_s)}/s`}`);
  if (res.counters) {
    const n = (k: string): number => (typeof res.counters?.[k] === 'number' ? (res.counters[k] as number) : 0);
    lines.push(`  reads ${n('prefetches')} (${formatBytes(n('prefetchBytes'))}), ready in time ${n('prefetchHits')}, stalls ${n('stalls')}, late ${n('late')}, waited ${n('stallMs').toFixed(1)} ms, window ${formatBytes(n('windowBytes'))} in ${n('windowSlots')} slots`);
  }
  const x = res.experts;
  if (x) {
    const pct = (v: number | null) => (v === null ? '—' : `${(100 * v).toFixed(1)} %`);
    lines.push(`  expert cache           ${x.slots_per_layer ?? '—'} of ${x.experts ?? '—'} experts per layer (${formatBytes(x.cache_bytes)}, staging ${formatBytes(x.staging_bytes)}, ${x.repacked_tensors} expert tensors repacked for the CPU kernels)`);
    lines.push(`  experts in decode      cache hits ${pct(x.decode_hit_rate)}, ready when needed ${pct(x.decode_ready_rate)} (read ahead on a prediction), read ${formatBytes(x.decode_expert_bytes_per_token)} per token, prediction right ${pct(x.decode_prediction_accuracy)}, waited ${x.decode_stall_ms_per_token === null ? '—' : x.decode_stall_ms_per_token.toFixed(1)} ms per token  [${x.note}]`);
    lines.push(`  experts, whole run     ${x.routed} routed, ${x.hits} cache hits (${pct(x.hit_rate)}), ${x.prefetch_hits} read ahead, ${x.loads} read (${x.prefetches} ahead of need), ${formatBytes(x.read_bytes)}, ${x.staged} layer passes from staging (${x.promoted} experts kept from it), ${x.stalls} stalls (${x.stall_ms.toFixed(1)} ms)`);
    const t = x.tiers;
    if (t.device !== null)
      lines.push(`  experts by tier        VRAM ${t.vram_hits} (${t.device_slots_per_layer} slots per layer on ${t.device}; decode ${pct(t.decode_vram_hit_rate)}), RAM ${t.ram_hits}, storage ${t.storage_reads}; ${t.uploads} uploaded to VRAM (${formatBytes(t.upload_bytes)})`);
  }
  for (const a of res.actions.filter((x) => x.layer !== undefined)) {
    lines.push(`  ${a.kind} layer ${a.layer}: requested ${formatBytes(a.requested_bytes)}, accepted ${formatBytes(a.accepted_bytes)}, observed ${formatBytes(a.observed_bytes)}`);
  }
  lines.push('  ledger:');
  for (const e of r.ledger.entries) lines.push(`    ${e.name.padEnd(34)} ${formatBytes(e.bytes).padStart(11)}  ${e.reason ? `(${e.reason})` : e.source}`);
  for (const e of r.ledger.reconciliation) lines.push(`    ${e.name.padEnd(34)} ${formatBytes(e.bytes).padStart(11)}  ${e.formula}`);
  return lines.join('\n') + '\n';
}
