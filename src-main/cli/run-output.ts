// What `run` writes besides the text: --tokens-json and --profile.
import type { RunOnceResult } from '../shared/run-result.js';
import type { DraftStats } from '../shared/worker-protocol.js';
import { percentile } from '../shared/stats.js';
import { formatBytes } from '../shared/size.js';
import type { WorkerResidency } from '../shared/report/build-report.js';

export function tokensJson(r: RunOnceResult): unknown {
  const g = r.generation;
  if (!g) return null;
  return {
    prompt_token_ids: g.promptTokens,
    token_ids: g.tokens,
    stop_reason: g.stopReason,
    ...(g.draft ? { draft: draftJson(g.draft, g.tokens.length) } : {}),
    timings: {
      load_ms: r.model?.loadMs ?? null,
      prompt_ms: g.timings.promptMs,
      ttft_ms: g.timings.ttftMs,
      start_to_first_token_ms: r.startToFirstTokenMs,
      decode_ms: g.timings.decodeMs,
      prompt_tok_s: g.timings.promptTokS,
      decode_tok_s: g.timings.decodeTokS,
      per_token_ms: g.timings.perTokenMs,
    },
  };
}

export function profileText(r: RunOnceResult): string {
  const g = r.generation;
  if (!g || !r.model) return '';
  const decode = g.timings.perTokenMs.slice(1);
  const f = (v: number | null, d = 1) => (v === null ? '—' : v.toFixed(d));
  return [
    '',
    `profile: ${r.model.name} (${r.model.arch}, ${r.model.nLayers} layers)`,
    `  load            ${f(r.model.loadMs)} ms`,
    `  prompt          ${g.promptTokens.length} tokens (${g.reusedTokens} reused) in ${f(g.timings.promptMs)} ms = ${f(g.timings.promptTokS)} tok/s`,
    `  time to first   ${f(g.timings.ttftMs)} ms after load (${f(r.startToFirstTokenMs)} ms from the start of the run)`,
    `  decode          ${g.tokens.length} tokens, ${f(g.timings.decodeTokS, 2)} tok/s`,
    `  per-token ms    p50 ${f(percentile(decode, 50), 2)}  p90 ${f(percentile(decode, 90), 2)}  p99 ${f(percentile(decode, 99), 2)}  max ${f(decode.length ? Math.max(...decode) : null, 2)}`,
    `  stop            ${g.stopReason}`,
    ...(g.draft ? [`  draft           ${draftSummary(g.draft, g.tokens.length)}`] : []),
    '',
  ].join('\n');
}

/** Tokens per pass over the target: the first token comes from the prompt pass, the rest from verify passes. */
export function tokensPerPass(d: DraftStats, tokens: number): number | null {
  return d.passes > 0 ? Math.max(0, tokens - 1) / d.passes : null;
}

export function draftJson(d: DraftStats, tokens: number): Record<string, number | null> {
  return {
    drafted: d.drafted,
    accepted: d.accepted,
    acceptance: d.drafted > 0 ? d.accepted / d.drafted : null,
    target_passes: d.passes,
    tokens_per_target_pass: tokensPerPass(d, tokens),
    draft_ms: d.draftMs,
    verify_ms: d.verifyMs,
  };
}

export function draftSummary(d: DraftStats, tokens: number): string {
  const tpp = tokensPerPass(d, tokens);
  const acc = d.drafted > 0 ? `${((100 * d.accepted) / d.drafted).toFixed(0)}%` : '—';
  return `${d.drafted} drafted, ${d.accepted} accepted (${acc}); ${d.passes} target passes, ${tpp === null ? '—' : tpp.toFixed(2)} tokens per pass; draft ${d.draftMs.toFixed(0)} ms, verify ${d.verifyMs.toFixed(0)} ms`;
}

/** --inspect-layer N: where each of the layer's tensors lives, and what of it is resident. */
export function inspectLayerText(r: RunOnceResult, layer: number): string {
  const res = (r.generation as { residency?: WorkerResidency } | null)?.residency;
  if (!res) return `inspect-layer ${layer}: no inventory (the run produced no generation)\n`;
  const l = res.inventory.layers[layer];
  if (!l) return `inspect-layer ${layer}: the model has layers 0–${res.inventory.layers.length - 1}\n`;
  const hex = (n: number) => `0x${n.toString(16)}`;
  const lines = [
    '',
    `layer ${layer}: ${formatBytes(l.bytes)} in ${res.inventory.tensors.filter((t) => t.layer === layer).length} tensors, tier ${res.tiers[layer] ?? '—'}, resident ${formatBytes(res.finalResident[layer] ?? null)}`,
    '  tensor                          type    bytes        backing      file offset    address          pages            shared',
  ];
  for (const t of res.inventory.tensors.filter((x) => x.layer === layer)) {
    lines.push(
      `  ${t.name.padEnd(32)}${t.type.padEnd(8)}${formatBytes(t.bytes).padStart(11)}  ${t.backing.padEnd(12)} ${String(t.fileOffset ?? '—').padStart(13)}  ${hex(t.addr).padEnd(16)} ${`${t.firstPage}–${t.lastPage}`.padEnd(16)} ${t.sharedPages}`,
    );
  }
  lines.push(`  exclusive page ranges (dropped by the engine): ${l.ranges.map((x) => `${hex(x[0])}+${formatBytes(x[1])}`).join(', ') || 'none'}`);
  return lines.join('\n') + '\n';
}
