// The typed message protocol between a host (CLI, Electron main, browser-mode server) and the
// inference worker process that owns the native addon. One source of truth for both sides.

import type { ResidencyRowSpec } from './residency/residency-model.js';
import type { RoutingOptimum } from './moe/routing-optimum.js';
import type { ChatPromptParams, EmbedInput, EmbedPooling, GenerateParams, GenerationTimings, LogitBias, PromptLogprobs, StopReason, TokenEvent } from './generation-protocol.js';

// The generation's shapes live in generation-protocol.ts; they are part of this protocol.
export * from './generation-protocol.js';

export const POLICIES = ['off', 'observe', 'conservative', 'memory-bound', 'reuse-aware', 'stream'] as const;
export type PolicyName = (typeof POLICIES)[number];

export interface LoadParams {
  modelPath: string;
  /** Memory-map the file (default true). */
  mmap?: boolean;
  /** Let ggml repack weights into CPU-friendly layouts (default true). */
  repack?: boolean;
  gpuLayers?: number;
  /** Where the offloaded layers (the last `layers` blocks) go: devices and their shares. */
  offload?: OffloadParams;
  /** Prefault the whole mapping at load (llama.cpp's MAP_POPULATE); false = --no-prefetch. */
  prefault?: boolean;
  ctx?: number;
  threads?: number;
  batch?: number;
  policy?: PolicyName;
  /** Requests decoded together, each in its own KV sequence of `ctx` tokens (default 1). */
  parallel?: number;
  /** RAM budget in bytes the plan is made for (advisory unless the worker runs capped). */
  ramBytes?: number;
  prefetchDepth?: number;
  /** false: the expert cache never reads predicted experts ahead (default: while it pays). */
  expertReadAhead?: boolean;
  /** true: the expert cache starts with the experts earlier runs of the file used most (RunSettings.expertWarmStart). */
  expertWarmStart?: boolean;
  /**
   * A mixture of experts under the expert cache: its slots hold the CPU kernels' repacked layout
   * (experts_repack.cpp). Only where the user asked for repacking (`--repack`) and the load itself
   * cannot repack (the model does not fit): repacked and plain kernels round differently, so by
   * default a capped run computes as plain llama.cpp does under the same cap.
   */
  repackExperts?: boolean;
  /** Per-layer tiers from the memory plan; the residency engine executes them. */
  tiers?: ('vram' | 'remote' | 'pinned' | 'streamed')[];
  /**
   * The plan's stream schedule. Under a budget (ramBytes) the worker re-makes the split with
   * what it measures after load (its real non-weight charge), so `tensors` is the plan's estimate.
   */
  stream?: StreamParams;
  /** Release policies (memory-bound, reuse-aware) release toward this many resident bytes. */
  residencyTargetBytes?: number;
  /** reuse-aware: layer release order from a graph-trace profile (first released first). */
  releaseOrder?: number[];
  /** Drop these layers' exclusive pages right after load (--release-layer). */
  releaseLayers?: number[];
  /** Drop every mapping page not held by a pinned layer right after load (--release-mapping-pages). */
  releaseMappingPages?: boolean;
  /** Capture one decode's scheduler graph (bounded); reuse-aware always captures one. */
  graphTrace?: { maxEvents: number; detail: boolean };
  /** Speculative decoding: a draft model proposes up to `max` tokens a pass (`--draft`). */
  draft?: DraftParams;
  /**
   * A mixture of experts' routing: a trace replayed in place of the routers' choices
   * (`--routing-trace`), the routing written to a trace file (`--routing-trace-out`), and the
   * routing kept to compare the expert cache's reads with Belady's optimum (`optimum`).
   */
  routing?: { trace?: string; out?: string; optimum?: boolean };
  /** LOSSY: a mixture of experts uses this many experts per token instead of its own number (RunSettings.expertsUsed). */
  expertsUsed?: number;
  /** LOSSY: under the expert cache, a decoded token's missed expert weighted below this share is skipped (RunSettings.skipColdExperts). */
  skipColdExperts?: number;
}

/**
 * Layers placed off this process's RAM, as llama.cpp places them: the last `layers` blocks, split
 * over `devices` in order by `split` (layer counts). A device is a ggml device name or
 * `rpc:host:port`, an RPC node.
 */
export interface OffloadParams {
  layers: number;
  devices: string[];
  split: number[];
  /** RPC nodes (host:port) the devices name. */
  rpcServers: string[];
  /** Tensor-name patterns kept in CPU RAM whatever their layer (an MoE's experts). */
  cpuTensors?: string[];
  /** A GPU's VRAM budget and what the plan puts there (weights + KV + compute), for the report. */
  budgetBytes?: number;
  plannedBytes?: number;
  /** The expert cache's VRAM tier on the first device (plan.gpu.deviceExperts): slots per MoE layer. */
  deviceExperts?: { slotsPerLayer: number };
}

export interface DraftParams {
  modelPath: string;
  /** Most tokens drafted per pass; the engine adapts k within [min, max] from the measured acceptance. */
  max: number;
  min: number;
}

export interface DraftInfo {
  path: string;
  name: string;
  nLayers: number;
  /** Weight bytes the draft shares with the target (pointed at the target's copy), and its own. */
  sharedBytes: number;
  ownBytes: number;
  max: number;
  min: number;
}

/** What speculative decoding did in one generation. */
export interface DraftStats {
  /** Tokens the draft proposed, and of them the target kept. */
  drafted: number;
  accepted: number;
  /** Verify passes over the target (each one read of its streamed weights). */
  passes: number;
  draftMs: number;
  verifyMs: number;
}

export interface StreamParams {
  tensors: string[];
  /** Units read ahead of the one in use. */
  prefetchDepth: number;
  /** What the kernel may read past a unit. */
  readaheadBytes: number;
  /** Compute buffers not yet touched at load (they are charged when first used). */
  computeReserveBytes: number;
  /** A server's embeddings context, made on the first /v1/embeddings request (0 or absent when not serving). */
  embeddingsReserveBytes?: number;
}

/** The split the worker executed, with the measurements it was made from. */
export interface StreamSchedule {
  capBytes: number | null;
  /** Non-weight bytes charged at load (cgroup charge − model pages, or anonymous RSS). */
  nonWeightMeasuredBytes: number | null;
  nonWeightSource: string;
  /** What the budget reserved for non-weight memory (measured + compute reserve + growth). */
  nonWeightBudgetBytes: number | null;
  persistentResidentBytes: number;
  residentLayerBytes: number;
  streamedBytes: number;
  streamedTensors: number;
  units: number;
  windowBytes: number;
  readaheadBytes: number;
  headroomBytes: number;
  pinnedBytes: number;
  pinnedLockedBytes: number;
  lockError: string | null;
  /** A mixture of experts: the expert cache the schedule gave the experts (null: none). */
  expertCache?: { slotsPerLayer: number; experts: number; used: number; cacheBytes: number; stagingBytes: number; device?: { name: string; slotsPerLayer: number } | null } | null;
}

export interface ModelInfo {
  path: string;
  name: string;
  arch: string;
  description: string;
  nParams: number;
  sizeBytes: number;
  nLayers: number;
  nCtxTrain: number;
  nVocab: number;
  nCtx: number;
  chatTemplate: string | null;
  metadata: Record<string, string>;
  loadMs: number;
  /** The streaming split the worker executes (stream policy), else null. */
  schedule: StreamSchedule | null;
  /** The draft model proposing tokens (speculative decoding), when one was loaded. */
  draft?: DraftInfo | null;
  /** What llama.cpp allocated on each offload device after load (measured; absent without one). */
  deviceMemory?: DeviceMemory[];
  /** Where each layer's and each other tensor's bytes were placed: the residency view's fixed part (absent from older workers). */
  residencyRows?: ResidencyRowSpec[];
}

/** One device's buffers as llama.cpp counts them (llama_get_memory_breakdown): weights, KV cache, compute. */
export interface DeviceMemory {
  device: string;
  modelBytes: number;
  contextBytes: number;
  computeBytes: number;
  totalBytes: number;
}

export interface GenerationResult {
  promptTokens: number[];
  tokens: number[];
  text: string;
  stopReason: StopReason;
  /** Prompt tokens reused from the KV cache of the previous turn. */
  reusedTokens: number;
  timings: GenerationTimings;
  /** GenerateParams.promptLogprobs: the prompt's tokens. */
  promptLogprobs?: PromptLogprobs;
  /**
   * llama_decode calls this generation made on its own (one sequence at a time: the prompt's
   * micro-batches and one per token, a speculative pass's verification not counted); absent
   * where it shared the batch server's steps (ServeStep counts those).
   */
  decodes?: number;
  /** The token biases the sampler applied (the request's, and with ignoreEos each end-of-generation token's -Infinity); absent: none. */
  logitBias?: LogitBias[];
  /** Present when a draft model proposed tokens. */
  draft?: DraftStats;
  /** A mixture of experts whose routing was replayed, recorded or kept (LoadParams.routing). */
  routing?: RoutingResult;
}

/** The routing of the run so far (every generation since load). */
export interface RoutingResult {
  /** The trace replayed, and the file the routing is written to. */
  trace: string | null;
  recordedTo: string | null;
  /** Token × layer selections taken from the trace. */
  replacedSelections: number;
  /** Times the run used up the trace's prompt (decode) steps and started them over. */
  promptWraps: number;
  decodeWraps: number;
  /** Routed experts not kept (past the recording's bound): the optimum then covers less than the run. */
  droppedIds: number;
  /** Micro-batch × layer requests let go to bound the log (a long session): the optimum covers the newer ones. */
  forgottenRequests: number;
  /** What a cache of the expert cache's size would have read (null: no expert cache ran). */
  optimum: RoutingOptimum | null;
}

/** Host → worker. Every request with an id gets exactly one `result` with that id. */
export type WorkerRequest =
  | { id: number; type: 'load'; params: LoadParams }
  | { id: number; type: 'generate'; params: GenerateParams }
  /** truncate: a text longer than the embeddings context keeps its first tokens (Ollama's default) instead of failing. */
  | { id: number; type: 'embed'; texts: EmbedInput[]; truncate?: boolean; pooling?: EmbedPooling }
  /** llama-server's /tokenize and /detokenize: the loaded vocabulary's ids of a text (and each id's piece), or the text of ids. */
  | { id: number; type: 'tokenize'; text: string; addSpecial: boolean; parseSpecial: boolean }
  | { id: number; type: 'detokenize'; tokens: number[]; /** Special tokens (BOS…) written as their text (`<s>`), as llama-server's /completion shows its prompt. */ special?: boolean }
  /** llama-server's /apply-template (and the token counts of count_tokens, input_tokens): the prompt text the chat template makes of these turns (ChatPromptResult). */
  | { id: number; type: 'apply-template'; params: ChatPromptParams }
  /** Teacher forcing: the model's greedy choice after each token of `continuation` given `prompt` before it, decoded one token a step as generation decodes. */
  | { id: number; type: 'agreement'; prompt: number[]; continuation: number[] }
  /**
   * The device's read rate: `bytes` of `path` from `offset` (a multiple of 2 MiB, default 0), direct
   * I/O, in requests of `chunkBytes` with `threads` in flight; with `scatter`, the requests land
   * all over the file (a fixed permutation of its chunks) and `offset` is not used.
   */
  | { id: number; type: 'probe-disk'; path: string; bytes: number; offset?: number; chunkBytes?: number; threads?: number; scatter?: boolean }
  /** Cancels the request with that id, or every request. */
  | { type: 'cancel'; target?: number }
  | { type: 'shutdown' };

export interface ServeStep {
  sequences: number;
  /** Tokens the pass computed (prompt pieces included). */
  tokens: number;
  /** Of them, next-token steps of generating requests. */
  decoded: number;
  ms: number;
}

/** How fast the device holding a file reads (direct I/O where the file system allows it). */
export interface DiskProbe {
  bytes: number;
  seconds: number;
  direct: boolean;
}

export interface WorkerErrorPayload {
  code: string;
  message: string;
}

/** Worker → host. */
export type WorkerEvent =
  | { type: 'ready'; pid: number }
  | { type: 'progress'; id: number; fraction: number }
  | { type: 'token'; id: number; token: TokenEvent }
  | { type: 'sample'; sample: unknown }
  /** One pass over the weights by the batch server: the sequences it served, the tokens it computed. */
  | { type: 'serve-step'; step: ServeStep }
  | { type: 'result'; id: number; ok: true; value: unknown }
  | { type: 'result'; id: number; ok: false; error: WorkerErrorPayload };

export type WorkerEndReason = 'exit' | 'crash' | 'oom' | 'timeout' | 'killed';

export interface WorkerExit {
  reason: WorkerEndReason;
  code: number | null;
  signal: string | null;
  message: string;
}
