// The bench table and its JSON form, built from one report per policy.
import { formatBytes } from '../shared/size.js';
import type { RunReport } from '../shared/report/report-types.js';
import type { RunShape } from '../shared/settings/run-shape.js';

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

const ratio = (a: number | null, b: number | null): number | null => (a !== null && b !== null && b > 0 ? a / b : null);

/** The device's read rate, measured on the model file in the same command. */
export interface BenchDevice {
  bytesPerS: number;
  source: string;
}

/**
 * A run against the physical limit of its schedule: a token cannot take less than the larger of
 * the compute a token costs (the resident run's seconds per token, measured in the same command)
 * and the bytes the run read per token at the device's rate (measured in the same command).
 */
function limitColumns(r: RunReport, resident: RunReport | undefined, device: BenchDevice | null) {
  const tok = r.generation?.decode_tok_s ?? null;
  const read = r.residency.bytes_read_per_token;
  const computeS = resident?.generation?.decode_tok_s ? 1 / resident.generation.decode_tok_s : null;
  const readS = device && read !== null ? read / device.bytesPerS : null;
  const limitS = computeS !== null && readS !== null ? Math.max(computeS, readS) : null;
  return {
    compute_s_per_token: computeS,
    read_s_per_token: readS,
    limit_s_per_token: limitS,
    vs_limit: tok && limitS ? 1 / tok / limitS : null,
  };
}

export function benchJson(model: string, capBytes: number, enforced: boolean, rows: BenchRow[], shape?: RunShape, device: BenchDevice | null = null) {
  const first = rows[0]?.report.generation?.token_ids;
  const base = rows[0]?.report.generation?.decode_tok_s ?? null;
  const resident = rows.find((r) => r.policy === 'resident')?.report;
  return {
    model,
    cap_bytes: capBytes,
    enforced,
    settings: shape ? { ctx: shape.ctx, batch: shape.batch, threads: shape.threads, chosen: shape.reasons } : null,
    device_read_rate_bytes_per_s: device?.bytesPerS ?? null,
    device_read_rate_source: device?.source ?? null,
    results: rows.map(({ policy, report: r, decodeRuns }) => {
      const res = r.residency;
      const tok = r.generation?.decode_tok_s ?? null;
      return {
        policy,
        status: r.outcome.status,
        decode_tok_s: tok,
        decode_tok_s_runs: decodeRuns,
        vs_first: ratio(tok, base),
        ttft_ms: r.generation?.ttft_ms ?? null,
        prompt_tok_s: r.generation?.prompt_tok_s ?? null,
        bytes_read_per_token: res.bytes_read_per_token,
        floor_bytes_per_token: res.floor_bytes_per_token,
        read_over_floor: ratio(res.bytes_read_per_token, res.floor_bytes_per_token),
        limit_hits_decode: res.limit_hits_decode,
        limit_hits_total: r.cgroup?.max_events ?? null,
        pinned_resident_min: res.pinned_resident_min,
        read_rate_bytes_per_s: res.read_rate_bytes_per_s,
        non_weight_bytes: res.non_weight_bytes,
        peak_bytes: peakBytes(r),
        token_ids: r.generation?.token_ids ?? null,
        identical_tokens: first && r.generation ? JSON.stringify(first) === JSON.stringify(r.generation.token_ids) : null,
        ...(policy === 'resident' ? {} : limitColumns(r, resident, device)),
        ...planColumns(policy, r),
        ...draftColumns(policy, r, rows),
        ...expertColumns(r),
        ...networkColumns(r),
        ...lossyColumns(r),
      };
    }),
  };
}

/**
 * The plan's predicted decode speed beside the measured one: the plan predicts the schedule the
 * runtime runs under the cap (`stream`), so other policies' rows have none.
 */
function planColumns(policy: string, r: RunReport) {
  const planned = policy === 'stream' ? (r.plan?.quantities.predictedDecodeTokS.value ?? null) : null;
  const tok = r.generation?.decode_tok_s ?? null;
  return { plan_decode_tok_s: planned, measured_over_plan: ratio(tok, planned) };
}

/** A run with a lossy knob: the knob, and its teacher-forced agreement with the lossless run of its repetition. */
function lossyColumns(r: RunReport) {
  const l = r.lossy;
  if (!l) return {};
  return { lossy: l, agreement: l.agreement?.share ?? null, experts_skipped: r.residency.experts?.skipped ?? null };
}

/** Layers on RPC nodes: what crossed the network per decoded token, and the time waited on the nodes. */
function networkColumns(r: RunReport) {
  const n = r.residency.network;
  if (!n) return {};
  return { network_bytes_per_token: n.decode_bytes_per_token, network_wait_ms_per_token: n.decode_wait_ms_per_token, network_nodes: n.nodes };
}

/** A mixture of experts under the stream policy: the expert cache's figures during decode. */
function expertColumns(r: RunReport) {
  const x = r.residency.experts;
  if (!x) return {};
  return {
    experts: x,
    expert_hit_rate: x.decode_hit_rate,
    expert_ready_rate: x.decode_ready_rate,
    expert_prediction_accuracy: x.decode_prediction_accuracy,
    expert_slots_per_layer: x.slots_per_layer,
    // What the device gave the expert reads while they ran (compare the device's rate).
    expert_read_rate_bytes_per_s: x.decode_expert_read_rate_bytes_per_s,
    // The MoE's floor: what Belady's offline optimum would have read for this routing and cache size.
    expert_optimal_read_bytes: r.residency.routing?.optimal_read_bytes ?? null,
    expert_read_over_optimal: r.residency.routing?.read_over_optimal ?? null,
    prefetch_issued_share: x.prefetch_issued_share,
    prefetch_wasted_bytes: x.prefetch_wasted_bytes,
    // The VRAM tier (null without one): the share of decode's routed experts found in VRAM.
    expert_vram_hit_rate: x.tiers.decode_vram_hit_rate,
  };
}

/**
 * A `POLICY+draft` row against the same policy without the draft: its ideal is that row's
 * tok/s times the tokens each verify pass yielded (a pass costing no more than a plain one).
 */
function draftColumns(label: string, r: RunReport, rows: BenchRow[]) {
  const d = r.generation?.draft;
  if (!d) return {};
  const plain = rows.find((x) => x.policy === label.replace(/\+draft$/, ''))?.report.generation?.decode_tok_s ?? null;
  const ideal = plain !== null && d.tokens_per_target_pass !== null ? plain * d.tokens_per_target_pass : null;
  return {
    draft: d,
    tokens_per_target_pass: d.tokens_per_target_pass,
    acceptance: d.acceptance,
    ideal_tok_s: ideal,
    vs_ideal: ratio(r.generation?.decode_tok_s ?? null, ideal),
  };
}

export function benchTable(rows: BenchRow[], device: BenchDevice | null = null): string {
  const whole = benchJson('', 0, false, rows, undefined, device);
  const j = whole.results;
  const limits = j.some((r) => r.vs_limit != null);
  const planned = j.some((r) => r.plan_decode_tok_s != null);
  const drafts = j.some((r) => r.tokens_per_target_pass !== undefined);
  const experts = j.some((r) => r.experts !== undefined);
  const network = j.some((r) => r.network_nodes !== undefined);
  const lossy = j.some((r) => r.lossy !== undefined);
  const vram = j.some((r) => r.experts?.tiers.device != null);
  const head = [
    'policy', 'status', 'decode tok/s', 'vs first', 'prompt tok/s', 'read/token', 'floor/token', 'read/floor', 'limit hits (decode)', 'locked min', 'read rate', 'peak', 'same tokens',
    ...(drafts ? ['tokens/pass', 'accepted', 'vs ideal'] : []),
    ...(limits ? ['compute/token', 'read/token at device', 'vs limit'] : []),
    ...(planned ? ['plan tok/s', 'measured/plan'] : []),
    ...(experts ? ['experts cached', 'cache hits', 'ready in time', 'predicted', 'read/optimal', 'read ahead on', 'read in vain', 'expert read rate'] : []),
    ...(vram ? ['VRAM hits'] : []),
    ...(network ? ['network/token', 'wait on nodes/token'] : []),
    ...(lossy ? ['agreement (lossy)'] : []),
  ];
  const pct = (v: number | null | undefined) => (v == null ? '—' : `${(100 * v).toFixed(1)} %`);
  const b = (v: number | null) => (v === null ? '—' : formatBytes(v));
  const body = j.map((r) => [
    r.policy,
    r.status,
    r.decode_tok_s === null ? '—' : r.decode_tok_s.toFixed(2),
    r.vs_first === null ? '—' : `${r.vs_first.toFixed(2)}×`,
    r.prompt_tok_s === null ? '—' : r.prompt_tok_s.toFixed(2),
    b(r.bytes_read_per_token),
    b(r.floor_bytes_per_token),
    r.read_over_floor === null ? '—' : `${r.read_over_floor.toFixed(2)}×`,
    r.limit_hits_decode === null ? '—' : String(r.limit_hits_decode),
    r.pinned_resident_min === null ? '—' : `${(100 * r.pinned_resident_min).toFixed(1)} %`,
    r.read_rate_bytes_per_s === null ? '—' : `${b(r.read_rate_bytes_per_s)}/s`,
    b(r.peak_bytes),
    r.identical_tokens === null ? '—' : r.identical_tokens ? 'yes' : 'NO',
    ...(drafts
      ? [
          r.tokens_per_target_pass == null ? '—' : r.tokens_per_target_pass.toFixed(2),
          r.acceptance == null ? '—' : `${(100 * r.acceptance).toFixed(0)} %`,
          r.vs_ideal == null ? '—' : `${r.vs_ideal.toFixed(2)}×`,
        ]
      : []),
    ...(limits
      ? [
          r.compute_s_per_token == null ? '—' : `${(1000 * r.compute_s_per_token).toFixed(0)} ms`,
          r.read_s_per_token == null ? '—' : `${(1000 * r.read_s_per_token).toFixed(0)} ms`,
          r.vs_limit == null ? '—' : `${r.vs_limit.toFixed(2)}×`,
        ]
      : []),
    ...(planned ? [r.plan_decode_tok_s == null ? '—' : r.plan_decode_tok_s.toFixed(2), r.measured_over_plan == null ? '—' : `${r.measured_over_plan.toFixed(2)}×`] : []),
    ...(experts
      ? [
          r.experts ? `${r.experts.slots_per_layer ?? '—'} of ${r.experts.experts ?? '—'}` : '—',
          pct(r.expert_hit_rate),
          pct(r.expert_ready_rate),
          pct(r.expert_prediction_accuracy),
          r.expert_read_over_optimal == null ? '—' : `${r.expert_read_over_optimal.toFixed(2)}×`,
          pct(r.prefetch_issued_share),
          r.prefetch_wasted_bytes === undefined ? '—' : b(r.prefetch_wasted_bytes),
          r.expert_read_rate_bytes_per_s == null ? '—' : `${b(r.expert_read_rate_bytes_per_s)}/s`,
        ]
      : []),
    ...(vram ? [pct(r.expert_vram_hit_rate)] : []),
    ...(network ? [b(r.network_bytes_per_token ?? null), r.network_wait_ms_per_token == null ? '—' : `${r.network_wait_ms_per_token.toFixed(1)} ms`] : []),
    ...(lossy ? [r.lossy === undefined ? 'lossless' : pct(r.agreement)] : []),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((x) => (x[i] as string).length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] as number)).join('  ');
  const runs = rows.some((r) => r.decodeRuns.length > 1)
    ? rows.map((r) => `${r.policy}: decode tok/s per run ${r.decodeRuns.map((v) => (v === null ? '—' : v.toFixed(2))).join(', ')} (median shown)`)
    : [];
  const dev = device ? [`device read rate ${b(device.bytesPerS)}/s: ${device.source}${limits ? '; vs limit = seconds per token ÷ max(the resident run’s, read/token at the device’s rate)' : ''}`] : [];
  return [fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...body.map(fmt), ...runs, ...dev].join('\n') + '\n';
}
