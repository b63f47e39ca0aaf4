import type { NetworkFigures } from './network-figures.js';
import type { ExpertFigures } from './expert-figures.js';
import type { RoutingFigures } from './routing-figures.js';
import type { ReportHeldFigures, ReportOutsideRow } from './residency-rows.js';
// The run report, schema_version 1: one JSON document per operation. This type and
// resources/report.schema.json describe the same shape; tests validate built reports against
// the schema. Unknown figures are null with a reason, never a silent 0.
import type { MemoryPlan } from '../plan/plan-types.js';
import type { CgroupReport } from '../cgroup/report.js';
import type { ResidencyEvent, ResidencySample, Tier } from '../residency-types.js';
import type { PolicyName, StopReason, StreamSchedule } from '../worker-protocol.js';
import type { ManifestGroup, ManifestNode, ManifestTensor } from '../graph-trace/manifest.js';

export type OutcomeStatus = 'ok' | 'oom' | 'timeout' | 'error';

export interface LedgerEntry {
  name: string;
  bytes: number | null;
  /** Where the number comes from (a file, a syscall, llama.cpp, the plan). */
  source: string;
  reason?: string;
}

/** A layer; with the residency rows (`placement`, `held`, …: absent from older reports) every copy of it by tier at the run's end. */
export interface ReportLayer extends Partial<ReportHeldFigures> {
  index: number;
  bytes: number;
  resident_bytes: number | null;
  tier: Tier;
  file_backed_bytes: number | null;
}

export interface ReportAction {
  kind: 'prefetch' | 'drop' | 'release';
  /** Set for actions on one layer (--release-layer); absent for the engine's totals. */
  layer?: number;
  count: number;
  requested_bytes: number | null;
  accepted_bytes: number | null;
  observed_bytes: number | null;
}

export interface RunReport {
  schema_version: 1;
  kind: 'run';
  created_at: string;
  tool: { name: 'ramforge'; version: string; llama_cpp: string };
  model: {
    path: string;
    name: string | null;
    architecture: string | null;
    file_bytes: number;
    tensor_bytes: number;
    n_layers: number;
    n_params: number | null;
    shards: string[];
  };
  config: {
    policy: PolicyName;
    ram_bytes: number | null;
    enforce_ram: boolean;
    ctx: number;
    batch: number | null;
    threads: number | null;
    mmap: boolean;
    repack: boolean;
    prefault: boolean;
    prefetch_depth: number;
    max_tokens: number;
    sampling: Record<string, number>;
    chat: boolean;
  };
  plan: MemoryPlan | null;
  outcome: { status: OutcomeStatus; exit_code: number; message: string | null };
  generation: null | {
    prompt_tokens: number;
    prompt_token_ids: number[];
    generated_tokens: number;
    token_ids: number[];
    text: string;
    stop_reason: StopReason;
    load_ms: number | null;
    ttft_ms: number;
    prompt_tok_s: number;
    decode_tok_s: number;
    per_token_ms: number[];
    /** Speculative decoding: what the draft proposed and the target kept (absent without a draft). */
    draft?: ReportDraft | null;
  };
  ledger: {
    entries: LedgerEntry[];
    reconciliation: { name: string; bytes: number | null; formula: string }[];
  };
  residency: {
    policy: PolicyName;
    layers: ReportLayer[];
    /** The tensors outside the layers (token embeddings, output head, output norm), rows of their own (absent from older reports). */
    outside?: ReportOutsideRow[];
    persistent_bytes: number | null;
    anonymous_bytes: number | null;
    /** A mixture of experts under the stream policy: the expert cache's figures (null otherwise). */
    experts?: ExpertFigures | null;
    /** A mixture of experts' routing: replayed, recorded, and the expert reads against Belady's optimum (null: not kept). */
    routing?: RoutingFigures | null;
    /** Layers on RPC nodes (`--rpc`): per node, bytes per token each way and the time waited (absent otherwise). */
    network?: NetworkFigures | null;
    counters: Record<string, number | boolean | string | null> | null;
    bytes_read_per_token: number | null;
    bytes_read_per_token_reason: string | null;
    /** No schedule reads less: weights per token − (cap − non-weight memory charged). */
    floor_bytes_per_token: number | null;
    floor_bytes_per_token_note: string;
    /** Times the memory group's limit was hit during decode. */
    limit_hits_decode: number | null;
    limit_hits_decode_note: string;
    /** Lowest resident share of the locked weights in any decode sample (0..1). */
    pinned_resident_min: number | null;
    pinned_resident_min_note: string;
    non_weight_bytes: number | null;
    non_weight_bytes_note: string;
    /** Storage bytes read per second of decode. */
    read_rate_bytes_per_s: number | null;
    read_rate_bytes_per_s_note: string;
    /** The streaming split the worker executed (stream policy), else null. */
    schedule: StreamSchedule | null;
    actions: ReportAction[];
    timeline: ResidencySample[];
    events: ResidencyEvent[];
  };
  cgroup: CgroupReport | null;
  /** The VRAM tier: the budget, what the plan put on the device, what llama.cpp allocated there (absent: nothing offloaded to a GPU). */
  gpu?: ReportGpu;
  /** The lossy knobs of a mixture of experts the run was given (absent: none; the answer is the model's). */
  lossy?: ReportLossy;
  cold_start: { path: string; status: string; detail: string | null }[] | null;
  graph_trace: null | {
    complete: boolean;
    events: number;
    dropped: number;
    reason: string | null;
    edges: number;
    /** reuse-aware: whether the profile was used or refused, and why. */
    profile_note: string | null;
    groups: ManifestGroup[];
    tensors: ManifestTensor[];
    /** Every node, with --graph-trace-detail; empty otherwise. */
    nodes: ManifestNode[];
  };
}

export interface ReportGpu {
  /** ggml's device name (Vulkan0 or CUDA0). */
  device: string;
  /** llama.cpp's n_gpu_layers: the output head and the last blocks. */
  gpu_layers: number;
  /** Tensor-name patterns kept in CPU RAM (an MoE's experts). */
  cpu_tensors: string[];
  budget_bytes: number | null;
  planned_bytes: number | null;
  /** What llama.cpp allocated on the device after load (weights + KV + compute); null where the load did not get that far. */
  measured_bytes: number | null;
  measured_bytes_note: string;
  model_bytes: number | null;
  context_bytes: number | null;
  compute_bytes: number | null;
  /** measured ≤ budget; null where either is unknown. */
  within_budget: boolean | null;
}

export interface ReportDraft {
  model: string;
  drafted: number;
  accepted: number;
  /** accepted / drafted; null when nothing was drafted. */
  acceptance: number | null;
  /** Verify passes over the target: each one read of its streamed weights. */
  target_passes: number;
  /** Generated tokens after the first (which the prompt pass yields) per verify pass. */
  tokens_per_target_pass: number | null;
  draft_ms: number;
  verify_ms: number;
}

/** A run with answer-changing knobs (--experts-used, --skip-cold-experts) and, where measured, its agreement with the lossless run. */
export interface ReportLossy {
  experts_used: number | null;
  skip_cold_experts: number | null;
  agreement: { positions: number; same: number; share: number | null } | null;
  note: string;
}
