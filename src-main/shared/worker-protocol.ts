// The typed message protocol between a host (CLI, Electron main, browser-mode server) and the
// inference worker process that owns the native addon. One source of truth for both sides.

import type { ResidencyRowSpec } from './residency/residency-model.js';
import type { RoutingOptimum } from './moe/routing-optimum.js';

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

export interface SamplingParams {
  /** 0 = greedy. */
  temperature: number;
  topK: number;
  topP: number;
  minP: number;
  seed: number;
  repeatPenalty: number;
  repeatLastN: number;
  /** GBNF the output must follow (llama.cpp's grammar sampler); absent = free text. */
  grammar?: string;
}

export interface ChatMessage {
  /** 'tool': a tool's result, sent back to the model (only on the tool-call path, see GenerateParams.tools). */
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** assistant: the calls it made (rendered by the model's own template). */
  toolCalls?: ToolCallMessage[];
  /** tool: the id of the call this answers. */
  toolCallId?: string;
  /** assistant: its earlier reasoning (llama-server's reasoning_content), handed to Jinja templates that render it (Qwen3's). */
  reasoningContent?: string;
}

export interface ToolCallMessage {
  id: string;
  name: string;
  /** JSON text of the arguments, as OpenAI carries them. */
  arguments: string;
}

/** A function the model may call (OpenAI's tools[].function). */
export interface ToolSpec {
  name: string;
  description?: string;
  /** A JSON schema of the arguments. */
  parameters?: unknown;
}

/**
 * A token at a position and its log-probability: the natural log of the model's softmax over its
 * raw logits there (llama-server's default, and what its OpenAI routes report), before any
 * sampler touched them.
 */
export interface TokenLogprob {
  id: number;
  /** The token's text as UTF-8 bytes (a piece of a character stays a piece). */
  bytes: number[];
  logprob: number;
}

/** A position's token with the most likely tokens there, most likely first. */
export interface PositionLogprobs extends TokenLogprob {
  top: TokenLogprob[];
}

/** A prompt's tokens with their log-probabilities: the first has none (nothing comes before it). */
export interface PromptLogprobs {
  firstBytes: number[];
  /** Tokens 1..n-1. */
  positions: PositionLogprobs[];
}

/** Fill-in-the-middle: the prompt built from the vocabulary's FIM tokens (llama-server's /infill). */
export interface InfillParts {
  prefix: string;
  suffix: string;
  /** More context before the prefix (other files of the project). */
  extra: { filename?: string; text: string }[];
}

/** How many of the most likely tokens a request may ask for at each position. */
export const MAX_TOP_LOGPROBS = 20;

export interface GenerateParams {
  /** Raw prompt (tokenized with BOS as the model asks). Ignored when `messages` is set. */
  prompt?: string;
  /** A prompt given as token ids of this model's vocabulary (OpenAI's token-id prompt): used as they are, instead of `prompt`. */
  promptTokens?: number[];
  /** Chat turns rendered with the model's own chat template. */
  messages?: ChatMessage[];
  /**
   * Tools the model may call. When set (or when a message is a tool call or a tool's result)
   * the worker renders `messages` with the model's Jinja chat template itself (llama.cpp's
   * built-in template matcher knows nothing of tools); [] renders the tool turns with no tools.
   */
  tools?: ToolSpec[];
  /** Fill-in-the-middle around `prompt` (which then is the start of the middle). */
  infill?: InfillParts;
  maxTokens: number;
  sampling: SamplingParams;
  /** Each generated token's log-probability and this many (0..MAX_TOP_LOGPROBS) of the most likely; absent: none. */
  logprobs?: number;
  /** The prompt's tokens' log-probabilities too (each with `logprobs` alternatives); the KV cache is not reused. */
  promptLogprobs?: boolean;
}

/**
 * How often the loaded model, fed another run's tokens (teacher forcing), picks that run's next
 * token greedily: `same` of `positions` (each token of the continuation is one position).
 */
export interface AgreementResult {
  positions: number;
  same: number;
}

/** A text's ids in the loaded vocabulary and each id's text. */
export interface TokenizeResult {
  tokens: number[];
  pieces: string[];
}

/**
 * Chat turns to render as a prompt (llama-server's /apply-template): rendered exactly as a
 * generation with the same `messages` and `tools` renders them, optionally without the opening
 * of the assistant's turn.
 */
export interface ChatPromptParams {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  addGenerationPrompt: boolean;
}

/** Turns rendered: the prompt text, and the number of tokens a generation given those turns would decode from it. */
export interface ChatPromptResult {
  prompt: string;
  tokens: number;
}

/**
 * A text to embed, or its token ids in the model's vocabulary (OpenAI's token-id input), or ids
 * and texts mixed in one sequence (llama-server's prompts: each text tokenized where it stands).
 */
export type EmbedInput = string | (number | string)[];

/** Mean-pooled hidden states of each text (n_embd floats each, not normalized), and their tokens in all. */
export interface EmbedResult {
  vectors: number[][];
  tokens: number;
}

export interface TokenEvent {
  index: number;
  tokenId: number;
  /** Text completed by this token (UTF-8 safe: bytes of a split character are held back). */
  text: string;
  /** Milliseconds since generation started. */
  tMs: number;
  /** Speculative decoding: on the first token of each pass, what the pass drafted and kept. */
  pass?: { drafted: number; accepted: number };
  /** GenerateParams.logprobs: this token's log-probability and the most likely there. */
  logprobs?: PositionLogprobs;
}

export type StopReason = 'eos' | 'max_tokens' | 'cancelled' | 'ctx_full';

export interface GenerationTimings {
  promptMs: number;
  ttftMs: number;
  decodeMs: number;
  promptTokS: number;
  decodeTokS: number;
  perTokenMs: number[];
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
  | { id: number; type: 'embed'; texts: EmbedInput[]; truncate?: boolean }
  /** llama-server's /tokenize and /detokenize: the loaded vocabulary's ids of a text (and each id's piece), or the text of ids. */
  | { id: number; type: 'tokenize'; text: string; addSpecial: boolean; parseSpecial: boolean }
  | { id: number; type: 'detokenize'; tokens: number[] }
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
