// Pure: builds the schema-v1 run report from what a run produced. No I/O here.
import { expertFigures } from './expert-figures.js';
import { routingFigures } from './routing-figures.js';
import { networkFigures } from './network-figures.js';
import type { MemoryPlan } from '../plan/plan-types.js';
import type { ModelSummary } from './model-summary.js';
import type { SupervisedOutcome } from '../cgroup/report.js';
import type { ResidencySample, Tier } from '../residency-types.js';
import type { AgreementResult, GenerateParams, GenerationResult, LoadParams, ModelInfo, PolicyName, WorkerExit } from '../worker-protocol.js';
import type { Inventory } from '../residency/inventory.js';
import type { LedgerEntry, OutcomeStatus, ReportAction, RunReport } from './report-types.js';
import type { GraphTraceManifest } from '../graph-trace/manifest.js';
import { decodeFigures } from './decode-figures.js';
import { DEFAULT_PREFETCH_DEPTH } from '../settings/run-settings.js';
import { residencyRows, type ResidencyRowSpec } from '../residency/residency-model.js';
import { heldFigures } from './residency-rows.js';

function graphTraceSection(res: WorkerResidency | undefined, detail: boolean): RunReport['graph_trace'] {
  const m = res?.graphTrace;
  if (!m) return null;
  return {
    complete: m.complete,
    events: m.events,
    dropped: m.dropped,
    reason: m.reason,
    edges: m.edges,
    profile_note: res?.profileNote ?? null,
    groups: m.groups,
    tensors: m.tensors,
    nodes: detail ? m.nodes : [],
  };
}

export interface WorkerResidency {
  policy: string;
  tiers: Tier[];
  inventory: Inventory;
  counters: Record<string, number | boolean | string | null> | null;
  finalResident: (number | null)[];
  /** Where each layer's and each other tensor's bytes were placed (absent from older workers). */
  rows?: ResidencyRowSpec[];
  graphTrace?: GraphTraceManifest | null;
  profileNote?: string | null;
  manualActions?: (ReportAction & { layer: number })[];
}

export interface ReportInput {
  createdAt: string;
  tool: { version: string; llamaCpp: string };
  modelPath: string;
  /** The model as the report describes it (from the header, or from what the worker loaded). */
  summary: ModelSummary;
  shards: string[];
  plan: MemoryPlan | null;
  load: LoadParams;
  generate: GenerateParams;
  model: ModelInfo | null;
  generation: (GenerationResult & { residency?: WorkerResidency }) | null;
  error: { code: string; message: string } | null;
  workerExit: WorkerExit | null;
  capped: SupervisedOutcome | null;
  coldStart: { path: string; status: string; reason: string | null }[] | null;
  samples: ResidencySample[];
  exitCode: number;
  /** Teacher-forced agreement with the lossless run's tokens (a lossy run in a bench). */
  agreement?: AgreementResult | null;
}

function outcomeOf(i: ReportInput): RunReport['outcome'] {
  if (i.capped && i.capped.status !== 'ok') return { status: i.capped.status as OutcomeStatus, exit_code: i.exitCode, message: i.capped.message };
  if (i.error) return { status: 'error', exit_code: i.exitCode, message: i.error.message };
  return { status: 'ok', exit_code: i.exitCode, message: null };
}

/** Storage bytes read per decoded token, from /proc/self/io across the decode phase. */
export function bytesReadPerToken(samples: ResidencySample[]): { value: number | null; reason: string | null } {
  const decode = samples.filter((s) => s.phase === 'decode' && s.readBytes !== null);
  if (decode.length < 2) return { value: null, reason: 'fewer than two decode samples (too few tokens)' };
  const a = decode[0] as ResidencySample;
  const b = decode[decode.length - 1] as ResidencySample;
  const tokens = b.token - a.token;
  if (tokens <= 0) return { value: null, reason: 'no tokens between the first and last decode sample' };
  return { value: ((b.readBytes as number) - (a.readBytes as number)) / tokens, reason: null };
}

function actionsFrom(c: Record<string, number | boolean | string | null> | null): ReportAction[] {
  if (!c) return [];
  const counters = c as Record<string, number>;
  return [
    { kind: 'prefetch', count: counters['prefetches'] ?? 0, requested_bytes: counters['prefetchBytes'] ?? null, accepted_bytes: counters['prefetchBytes'] ?? null, observed_bytes: null },
    { kind: 'drop', count: counters['drops'] ?? 0, requested_bytes: counters['droppedBytes'] ?? null, accepted_bytes: counters['droppedBytes'] ?? null, observed_bytes: null },
    { kind: 'release', count: 0, requested_bytes: counters['releasedBytes'] ?? null, accepted_bytes: counters['releasedBytes'] ?? null, observed_bytes: null },
  ];
}

function ledgerOf(i: ReportInput, res: WorkerResidency | undefined): RunReport['ledger'] {
  const last = [...i.samples].reverse().find((s) => s.rssBytes !== null);
  const mappingResident = res ? res.finalResident.reduce<number>((s, v) => s + (v ?? 0), 0) : null;
  const q = i.plan?.quantities;
  const entries: LedgerEntry[] = [
    { name: 'weights (file)', bytes: i.summary.tensorBytes, source: i.summary.source },
    { name: 'weights resident in the mapping', bytes: mappingResident, source: 'mincore over each layer’s exclusive pages', ...(mappingResident === null ? { reason: 'no inventory from the worker' } : {}) },
    { name: 'anonymous (repacked) weights', bytes: res ? res.inventory.anonymousBytes : null, source: 'tensor addresses outside the file mapping', ...(res ? {} : { reason: 'no inventory from the worker' }) },
    { name: 'KV cache (planned)', bytes: q?.kvRamBytes.value ?? null, source: q ? `plan: ${q.kvRamBytes.formula}` : 'plan', ...(q ? {} : { reason: 'no --ram given, no plan' }) },
    { name: 'compute buffers (planned)', bytes: q?.computeBufferBytes.value ?? null, source: q ? `plan: ${q.computeBufferBytes.formula}` : 'plan', ...(q ? {} : { reason: 'no --ram given, no plan' }) },
    { name: 'process RSS', bytes: last?.rssBytes ?? null, source: '/proc/<worker>/status VmRSS', ...(last ? {} : { reason: 'no sample from the worker' }) },
    { name: 'cgroup usage peak', bytes: i.capped?.cgroup.peak_bytes ?? null, source: 'cgroup memory peak', ...(i.capped ? {} : { reason: 'not capped (--enforce-ram not given)' }) },
  ];
  const rss = last?.rssBytes ?? null;
  const cg = i.capped?.cgroup.peak_bytes ?? null;
  return {
    entries,
    reconciliation: [
      { name: 'RSS − mapping resident', bytes: rss !== null && mappingResident !== null ? rss - mappingResident : null, formula: 'process RSS minus resident weight pages: anonymous memory, KV, buffers, runtime' },
      { name: 'cgroup peak − RSS', bytes: cg !== null && rss !== null ? cg - rss : null, formula: 'cgroup charge beyond the worker RSS: page cache not mapped, kernel memory' },
    ],
  };
}

export function buildRunReport(i: ReportInput): RunReport {
  const res = i.generation?.residency;
  // The worker may run another policy than asked (manual releases need the engine: observe).
  const policy = ((res?.policy as PolicyName | undefined) ?? i.load.policy ?? 'off') as PolicyName;
  return {
    schema_version: 1,
    kind: 'run',
    created_at: i.createdAt,
    tool: { name: 'ramforge', version: i.tool.version, llama_cpp: i.tool.llamaCpp },
    model: {
      path: i.modelPath,
      name: i.summary.name,
      architecture: i.summary.architecture,
      file_bytes: i.summary.fileBytes,
      tensor_bytes: i.summary.tensorBytes,
      n_layers: i.summary.layers.length,
      n_params: i.model?.nParams ?? i.summary.parameterCount,
      shards: i.shards,
    },
    config: configSection(i, policy),
    plan: i.plan,
    outcome: outcomeOf(i),
    generation: generationSection(i),
    ledger: ledgerOf(i, res),
    residency: residencySection(i, policy),
    cgroup: i.capped ? i.capped.cgroup : null,
    ...gpuSection(i),
    ...lossySection(i),
    cold_start: i.coldStart ? i.coldStart.map((c) => ({ path: c.path, status: c.status, detail: c.reason })) : null,
    graph_trace: graphTraceSection(res, i.load.graphTrace?.detail ?? false),
  };
}

/** The lossy knobs a run was given (absent: none), with what they cost in agreement where measured. */
function lossySection(i: ReportInput): { lossy?: RunReport['lossy'] } {
  const used = i.load.expertsUsed ?? null;
  const skip = i.load.skipColdExperts ?? null;
  if (used === null && skip === null) return {};
  const a = i.agreement ?? null;
  return {
    lossy: {
      experts_used: used,
      skip_cold_experts: skip,
      agreement: a ? { positions: a.positions, same: a.same, share: a.positions > 0 ? a.same / a.positions : null } : null,
      note: 'lossy: these knobs change the answer; agreement is the share of the lossless run\'s tokens this model picks greedily when fed that run\'s tokens (teacher forcing)',
    },
  };
}

/** The VRAM tier beside its budget: planned, and measured by llama.cpp's own ledger after load. */
function gpuSection(i: ReportInput): { gpu?: RunReport['gpu'] } {
  const o = i.load.offload;
  const dev = o?.devices.length === 1 && !o.devices[0]!.startsWith('rpc:') ? o.devices[0]! : null;
  if (!o || dev === null) return {};
  const m = i.model?.deviceMemory?.find((d) => d.device === dev) ?? null;
  const budget = o.budgetBytes ?? null;
  return {
    gpu: {
      device: dev,
      gpu_layers: o.layers,
      cpu_tensors: o.cpuTensors ?? [],
      budget_bytes: budget,
      planned_bytes: o.plannedBytes ?? null,
      measured_bytes: m?.totalBytes ?? null,
      measured_bytes_note: m ? "llama.cpp's buffers on the device after load (llama_get_memory_breakdown: weights, KV cache, compute)" : 'the model did not load',
      model_bytes: m?.modelBytes ?? null,
      context_bytes: m?.contextBytes ?? null,
      compute_bytes: m?.computeBytes ?? null,
      within_budget: m && budget !== null ? m.totalBytes <= budget : null,
    },
  };
}

function configSection(i: ReportInput, policy: PolicyName): RunReport['config'] {
  return {
    policy,
    ram_bytes: i.load.ramBytes ?? null,
    enforce_ram: i.capped !== null,
    ctx: i.load.ctx ?? i.model?.nCtx ?? 1,
    batch: i.load.batch ?? null,
    threads: i.load.threads ?? null,
    mmap: i.load.mmap ?? true,
    repack: i.load.repack ?? true,
    prefault: i.load.prefault ?? true,
    prefetch_depth: i.load.prefetchDepth ?? DEFAULT_PREFETCH_DEPTH,
    max_tokens: i.generate.maxTokens,
    // The report's sampling holds the numbers; a grammar (API requests only) is not one of them.
    sampling: Object.fromEntries(Object.entries(i.generate.sampling).filter((e): e is [string, number] => typeof e[1] === 'number')),
    chat: Boolean(i.generate.messages),
  };
}

function generationSection(i: ReportInput): RunReport['generation'] {
  const g = i.generation;
  if (!g) return null;
  return {
    prompt_tokens: g.promptTokens.length,
    prompt_token_ids: g.promptTokens,
    generated_tokens: g.tokens.length,
    token_ids: g.tokens,
    text: g.text,
    stop_reason: g.stopReason,
    load_ms: i.model?.loadMs ?? null,
    ttft_ms: g.timings.ttftMs,
    prompt_tok_s: g.timings.promptTokS,
    decode_tok_s: g.timings.decodeTokS,
    per_token_ms: g.timings.perTokenMs,
    ...(g.draft
      ? {
          draft: {
            model: i.model?.draft?.path ?? i.load.draft?.modelPath ?? '',
            drafted: g.draft.drafted,
            accepted: g.draft.accepted,
            acceptance: g.draft.drafted > 0 ? g.draft.accepted / g.draft.drafted : null,
            target_passes: g.draft.passes,
            tokens_per_target_pass: g.draft.passes > 0 ? Math.max(0, g.tokens.length - 1) / g.draft.passes : null,
            draft_ms: g.draft.draftMs,
            verify_ms: g.draft.verifyMs,
          },
        }
      : {}),
  };
}

/** Where the weights were and what decode read, with the figures' notes. */
function residencySection(i: ReportInput, policy: PolicyName): RunReport['residency'] {
  const res = i.generation?.residency;
  const invLayers = res?.inventory.layers;
  // Every copy of every weight at the run's end: the same rows the dashboard draws from the samples.
  const rows = res?.rows ? residencyRows(res.rows, i.samples, policy === 'stream') : null;
  const layerRow = (idx: number) => rows?.find((r) => r.layer === idx);
  const layers = i.summary.layers.map((l, idx) => {
    const row = layerRow(idx);
    return {
      index: l.index,
      bytes: l.bytes,
      resident_bytes: res ? (res.finalResident[idx] ?? null) : null,
      tier: (res?.tiers[idx] ?? i.plan?.layers[idx]?.tier ?? 'pinned') as Tier,
      file_backed_bytes: invLayers ? (invLayers[idx]?.fileBackedBytes ?? null) : null,
      ...(row ? heldFigures(row) : {}),
    };
  });
  const outside = rows?.filter((r) => r.layer === null).map((r) => ({ key: r.key, name: r.name, bytes: r.bytes, ...heldFigures(r) }));
  const brt = bytesReadPerToken(i.samples);
  const experts = expertFigures(i.samples, i.model?.schedule ?? null);
  const network = networkFigures(i.samples, i.plan?.remote);
  // The expert cache's slots are weights in anonymous memory, not non-weight memory.
  const window = (typeof res?.counters?.['windowBytes'] === 'number' ? (res.counters['windowBytes'] as number) : 0) + (experts ? (experts.cache_bytes ?? 0) + (experts.staging_bytes ?? 0) : 0);
  // What this process reads per token: layers (and a head) on a GPU or another machine are read there.
  const elsewhere = layers.filter((l) => l.tier === 'vram' || l.tier === 'remote').reduce((s, l) => s + l.bytes, 0) + (i.plan?.remote?.nodes.reduce((s, n) => s + n.headBytes, 0) ?? 0);
  const dense = decodeFigures(i.samples, { weightsPerToken: i.summary.weightsPerToken - elsewhere, capBytes: i.load.ramBytes ?? null, windowBytes: window });
  // A mixture's floor is its own: the routed experts no cache the cap allows could hold (the plan's routing model).
  const moeFloor = i.plan?.moe?.quantities.floorBytesPerToken;
  const fig = moeFloor && moeFloor.value !== null ? { ...dense, floorBytesPerToken: { value: moeFloor.value, note: `the plan's floor for a mixture of experts: ${moeFloor.formula}` } } : dense;
  return {
    policy,
    layers,
    ...(outside ? { outside } : {}),
    persistent_bytes: res ? res.inventory.persistentBytes : i.summary.persistentBytes,
    anonymous_bytes: res ? res.inventory.anonymousBytes : null,
    counters: res?.counters ?? null,
    experts,
    routing: routingFigures(i.generation?.routing, experts),
    ...(network ? { network } : {}),
    bytes_read_per_token: brt.value,
    bytes_read_per_token_reason: brt.reason,
    floor_bytes_per_token: fig.floorBytesPerToken.value,
    floor_bytes_per_token_note: fig.floorBytesPerToken.note,
    limit_hits_decode: fig.limitHits.value,
    limit_hits_decode_note: fig.limitHits.note,
    pinned_resident_min: fig.pinnedResidentMin.value,
    pinned_resident_min_note: fig.pinnedResidentMin.note,
    non_weight_bytes: fig.nonWeightBytes.value,
    non_weight_bytes_note: fig.nonWeightBytes.note,
    read_rate_bytes_per_s: fig.readRate.value,
    read_rate_bytes_per_s_note: fig.readRate.note,
    schedule: i.model?.schedule ?? null,
    actions: [...actionsFrom(res?.counters ?? null), ...(res?.manualActions ?? [])],
    timeline: i.samples,
    events: i.samples.flatMap((s) => s.events),
  };
}
