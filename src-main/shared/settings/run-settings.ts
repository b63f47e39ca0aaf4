// The one definition of a run's settings: their types, their defaults, their bounds and
// validation. The CLI's flags, the app service, the API and the renderer's form all read them
// from here, so a default changed here changes everywhere. Pure.
import { POLICIES, type PolicyName, type SamplingParams } from '../worker-protocol.js';
import { RpcEndpointError, parseRpcList } from '../remote/rpc-endpoint.js';

/** What a user sets for a run. `null` means "choose for me" (see run-shape.ts). */
export interface RunSettings {
  /** RAM budget the plan is made for (and, with enforceRam, the hard cap). */
  ramBytes: number | null;
  vramBytes: number | null;
  /** The GPU the VRAM budget is on: null = the first CUDA device, else the first hardware Vulkan GPU (none without one), 'none', or what `--gpu` takes: a Vulkan index, cuda:N, or a name (a software device only so). */
  gpu: string | null;
  enforceRam: boolean;
  /** Context length in tokens; null = the largest that leaves room for weights. */
  ctx: number | null;
  /** Micro-batch (llama.cpp n_ubatch, also the prompt batch); null = sized to the budget. */
  batch: number | null;
  /** CPU threads for compute; null = the machine's physical cores. */
  threads: number | null;
  /** Requests decoded together, each with its own `ctx` of KV cache (1 = one at a time). */
  parallel: number;
  policy: PolicyName | 'auto';
  /** Streamed units read ahead of the one in use, at most. */
  prefetchDepth: number;
  /**
   * A mixture of experts under the expert cache: read the next layer's predicted experts ahead
   * while its predictions are measured to pay (true), or never (false, for an A/B).
   */
  expertReadAhead: boolean;
  /**
   * A mixture of experts under the expert cache: read into its slots at load the experts earlier
   * runs of the same file were routed to most (true), or start empty (false). Off by default
   * until it is measured to pay on more than one routing: its gain here was within the noise
   * of a 32-token window (docs/moe.md), and it makes a run depend on the runs before it.
   */
  expertWarmStart: boolean;
  mmap: boolean;
  /** Repack weights for faster CPU kernels; null = on unless pages are released or streamed. */
  repack: boolean | null;
  /** Prefault the whole file at load; null = only when the model fits. */
  prefault: boolean | null;
  /** Record one decode's graph trace at load (the app's trace view). */
  graphTrace: boolean;
  /** A draft model for speculative decoding (one sequence only), or null. */
  draft: string | null;
  /** Most tokens the draft proposes a pass; the engine adapts within [draftMin, draftMax]. */
  draftMax: number;
  draftMin: number;
  /** llama.cpp RPC nodes (host:port) that hold the last layers in their RAM; [] = this machine only. */
  rpc: string[];
  /** A mixture of experts: a routing trace (`# route_trace v1` CSV) replayed in place of its routers' choices, or null. */
  routingTrace: string | null;
  /** A mixture of experts: write the run's routing to this file (the same CSV), or null. */
  routingTraceOut: string | null;
  /**
   * LOSSY, it changes the answer. A mixture of experts: this many experts per token instead of
   * the number the model was trained with (null: the model's own).
   */
  expertsUsed: number | null;
  /**
   * LOSSY, it changes the answer. A mixture of experts under the expert cache: a decoded token's
   * expert that is not in the cache and that its router weighted below this share is skipped
   * instead of read (null: never).
   */
  skipColdExperts: number | null;
}

/**
 * Bounds every path enforces before anything is allocated: the CLI's flags (declared with
 * these ranges), the app's and the API's settings (validateRunSettings, validateSampling), and
 * again the native edge for what reaches it. A value outside is a usage error, never a worker
 * that tries and dies.
 */
export const LIMITS = {
  ctx: { min: 16, max: 1 << 20 },
  batch: { min: 1, max: 8192 },
  threads: { min: 1, max: 512 },
  parallel: { min: 1, max: 64 },
  prefetchDepth: { min: 0, max: 16 },
  maxTokens: { min: 0, max: 1 << 20 },
  temperature: { min: 0, max: 100 },
  topK: { min: 0, max: 1 << 20 },
  topP: { min: 0, max: 1 },
  minP: { min: 0, max: 1 },
  seed: { min: 0, max: 0xffffffff },
  repeatPenalty: { min: 0, max: 100 },
  repeatLastN: { min: -1, max: 1 << 20 },
  /** Layers offloaded to a GPU backend (more than the model has means all of them). */
  gpuLayers: { min: 0, max: 1 << 16 },
  /** A layer index named on the command line (checked against the model before it loads). */
  layer: { min: 0, max: (1 << 16) - 1 },
  /** Scheduler nodes one graph trace may capture (the native edge's own bound). */
  graphTraceEvents: { min: 1, max: 10_000_000 },
  /** Seconds before an enforced run is killed: the longest a timer can wait (2^31 - 1 ms). */
  timeoutS: { min: 1, max: 2_147_483 },
  /** Experts per token a mixture of experts may be asked to use instead of its own number. */
  expertsUsed: { min: 1, max: 1024 },
  /** A share of a token's routing weight below which a cache miss may be skipped (lossy). */
  skipColdExperts: { min: 0.001, max: 0.99 },
  /** Repetitions of a benchmark run. */
  reps: { min: 1, max: 1000 },
  /** Bytes per KV cache element the plan assumes (q4_0 ≈ 0.56 … f32 = 4). */
  kvElementBytes: { min: 0.25, max: 8 },
  /** Tokens a draft proposes per pass (the native edge's own bound is 64). */
  draftTokens: { min: 0, max: 32 },
} as const;

export type Limit = { readonly min: number; readonly max: number };

/**
 * Units read ahead of the one in use, at most: the window holds this many + 1 of the largest
 * streamed unit (fewer where one layer streams fewer units: budgetStream). Three keeps the device busy while compute works through small units, and lets a pass
 * of several tokens (batched requests, a draft's verify pass) find its next unit read (1b
 * preset at 406 MiB, alternating runs: depth 1 ≈ 6.0, 2 ≈ 6.9, 3 ≈ 8.0 tok/s for ~20 MiB more
 * read per token).
 */
export const DEFAULT_PREFETCH_DEPTH = 3;

/**
 * How streamed units are read: I/O threads, each with one request in flight, and the request
 * size. Measured on the 1b preset at 406 MiB: 1, 2 or 4 threads and 4 or 8 MiB requests give
 * the same decode speed here (the virtio disk's largest request is 4 MiB); 4 threads keep a
 * deeper queue for devices that want one.
 */
export const STREAM_IO_THREADS = 4;

/**
 * Which expert a full expert cache gives up (a mixture of experts under the stream policy):
 * 'lru' (least recently used) or 'lfu' (least frequently used, counts decaying with a
 * half-life of ~64 micro-batches). Measured, one run each way, same session: the Mixtral layout
 * (16 experts, 2 used) at half its file, 4 slots a layer: cache hits 28.8 vs 26.3 %, 113.9 vs
 * 117.1 MiB read a token (twice each, the same); the Qwen3-30B-A3B shape (128, 8 used) under
 * 8 GiB, 47 slots: 59.5 vs 57.2 %, 412.5 vs 432.2 MiB a token.
 */
export const EXPERT_EVICTION: 'lru' | 'lfu' = 'lfu';

/**
 * I/O threads of the expert cache, each with one read in flight: a layer's misses are a few
 * slices of 0.3–5 MiB that the compute waits for together, so the depth of the queue, not the
 * size of a request, decides how soon they are all in. Measured on the gemma-4 trace's shape at
 * half its file (45 of 128 experts a layer, 864 KiB an expert), runs alternating: the decode waited
 * 62 and 30 ms a token with 4 threads, 24 and 15 with 8 (the native side's most); on the
 * Qwen3-30B-A3B shape under 8 GiB, 31 and 20 ms.
 */
export const EXPERT_IO_THREADS = 8;

/** Each expert I/O thread's bounce buffer (native/src/experts_io.cpp kBounce: 2 MiB, one huge page) and a block of slack. */
export const EXPERT_IO_BUFFER_BYTES = 2 * 1024 * 1024 + 4096;
export const STREAM_IO_REQUEST_BYTES = 4 * 1024 * 1024;

/**
 * How long an RPC node may leave this process without an answer (TCP_USER_TIMEOUT with
 * keepalive probes each second) before its connection is declared dead and the run ends: a node
 * lost mid-run ends the run within 10 s even when its machine vanishes without closing anything.
 */
export const RPC_DEAD_PEER_MS = 6000;

/**
 * A remote step's deadline. A node that freezes (stopped, thrashing, a hung driver) while its
 * kernel still answers TCP keeps the connection alive: keepalive probes are ACKed and
 * RPC_DEAD_PEER_MS never fires, so the decode would wait for ever. The worker's host ends a run
 * with layers on RPC nodes that shows no progress (no token, no node's counters moving, no reads)
 * for RPC_STEP_MARGIN × the longest step measured in its decode, never less than RPC_STEP_MIN_MS.
 * Ten times: steps vary with the page cache, the batch and the other sessions on a machine, but
 * a step ten times the slowest one seen is no longer jitter. Five seconds: above the worker's
 * heartbeat (RPC_HEARTBEAT_MS, the resolution of "no progress") and a scheduler's hiccup on a
 * busy machine, and like RPC_DEAD_PEER_MS it ends a frozen node's run within ~10 s.
 */
export const RPC_STEP_MARGIN = 10;
export const RPC_STEP_MIN_MS = 5000;
/**
 * Before a decode step is measured (the prompt, the first tokens of each request), a step is a
 * micro-batch of up to MAX_UBATCH tokens through a node's layers, which a CPU node can take a
 * minute or more for: the deadline is this, or the margin over the longest prompt step seen.
 */
export const RPC_PROMPT_STEP_MS = 120_000;
/** While a generation with layers on RPC nodes runs, the worker samples at least this often, so its host sees the counters move (or not) between tokens. */
export const RPC_HEARTBEAT_MS = 1000;

/** llama.cpp's default context when the model's own is larger; a load that names no context gets it too. */
/**
 * Tokens one text may have for /v1/embeddings: llama-server's default micro-batch, which embeds
 * a text at once. A server's plan budgets the embeddings context (its KV cache and the compute
 * buffer of a micro-batch this long); under a cap whose chosen micro-batch is smaller, the
 * context is that micro-batch (at least EMBED_MIN_TOKENS), so its compute buffer stays within
 * the share the cap gives one.
 */
export const EMBED_MAX_TOKENS = 512;
export const EMBED_MIN_TOKENS = 16;

/** The embeddings context's tokens for a run's micro-batch and the model's trained context. */
export function embedTokens(ubatch: number, nCtxTrain: number | null): number {
  return Math.max(EMBED_MIN_TOKENS, Math.min(EMBED_MAX_TOKENS, ubatch, nCtxTrain && nCtxTrain > 0 ? nCtxTrain : EMBED_MAX_TOKENS));
}

export const DEFAULT_CTX = 4096;
/** The largest micro-batch a run gets (llama.cpp's default n_ubatch); a load that names none gets it. */
export const MAX_UBATCH = 512;

/** The micro-batch for a batch asked for: at most MAX_UBATCH, and never more than the context. */
export function microBatch(batch: number, ctx = Infinity): number {
  return Math.min(batch, MAX_UBATCH, ctx);
}

/** Bytes per KV cache element the plan assumes unless told (F16 keys and values). */
export const DEFAULT_KV_ELEMENT_BYTES = 2;

/** Scheduler nodes one graph trace captures at most unless told (a few hundred per layer). */
export const DEFAULT_GRAPH_TRACE_EVENTS = 100_000;

/** Seconds before an enforced run is killed unless told (exit 124). */
export const DEFAULT_ENFORCE_TIMEOUT_S = 900;

/**
 * A draft model serves one sequence: speculative decoding verifies one sequence's drafted tokens
 * a pass. The settings, the CLI's flags and the worker refuse a draft beside more sequences
 * (draftRefusal); the parallel choice picks this many.
 */
export const DRAFT_PARALLEL = 1;

/** Why a draft cannot run beside `parallel` sequences (`flags`: say it in the CLI's words), or null. */
export function draftRefusal(draft: boolean, parallel: number, flags = false): string | null {
  if (!draft || parallel <= DRAFT_PARALLEL) return null;
  return flags
    ? `--draft serves one sequence: it does not combine with --parallel above ${DRAFT_PARALLEL}`
    : `a draft model serves one sequence: it does not combine with parallel above ${DRAFT_PARALLEL}`;
}

export const DEFAULT_RUN_SETTINGS: RunSettings = {
  ramBytes: null,
  vramBytes: null,
  gpu: null,
  enforceRam: false,
  ctx: null,
  batch: null,
  threads: null,
  parallel: 1,
  policy: 'auto',
  prefetchDepth: DEFAULT_PREFETCH_DEPTH,
  expertReadAhead: true,
  expertWarmStart: false,
  mmap: true,
  repack: null,
  prefault: null,
  graphTrace: true,
  draft: null,
  draftMax: 8,
  draftMin: 0,
  rpc: [],
  routingTrace: null,
  routingTraceOut: null,
  expertsUsed: null,
  skipColdExperts: null,
};

/** Sampling a new chat or `ramforge run` starts with (llama.cpp's own defaults). */
export const DEFAULT_SAMPLING: SamplingParams = {
  temperature: 0.8,
  topK: 40,
  topP: 0.95,
  minP: 0.05,
  seed: 0xffffffff,
  repeatPenalty: 1.0,
  repeatLastN: 64,
};

export const DEFAULT_MAX_TOKENS = 128;

/** Greedy decoding (benchmarks and comparisons: identical tokens across policies). */
export const GREEDY: SamplingParams = { temperature: 0, topK: 0, topP: 1, minP: 0, seed: 1, repeatPenalty: 1, repeatLastN: 0 };

export class SettingsError extends TypeError {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'SettingsError';
  }
}

function int(v: unknown, field: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw new SettingsError(field, `must be an integer ${min}..${max} (got ${String(v)})`);
  return v;
}

function num(v: unknown, field: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) throw new SettingsError(field, `must be a number ${min}..${max} (got ${String(v)})`);
  return v;
}

function intOrNull(v: unknown, field: string, min: number, max: number): number | null {
  return v === null ? null : int(v, field, min, max);
}

function boolOrNull(v: unknown, field: string): boolean | null {
  if (v === null) return null;
  if (typeof v !== 'boolean') throw new SettingsError(field, 'must be true, false or null (auto)');
  return v;
}

function bool(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') throw new SettingsError(field, 'must be true or false');
  return v;
}

export function checkPolicy(p: unknown, field = 'policy'): PolicyName | 'auto' {
  if (p === 'auto' || (typeof p === 'string' && (POLICIES as readonly string[]).includes(p))) return p as PolicyName | 'auto';
  throw new SettingsError(field, `must be auto or one of ${POLICIES.join(', ')} (got '${String(p)}')`);
}

/** Settings that crossed a process boundary (untrusted shape): defaults filled in, every field checked. */
export function validateRunSettings(s: unknown): RunSettings {
  if (s === null || s === undefined) return { ...DEFAULT_RUN_SETTINGS };
  if (typeof s !== 'object' || Array.isArray(s)) throw new SettingsError('settings', 'must be an object');
  const v = { ...DEFAULT_RUN_SETTINGS, ...(s as Partial<RunSettings>) };
  const bytes = (x: unknown, f: string): number | null => intOrNull(x, f, 1, Number.MAX_SAFE_INTEGER);
  const ramBytes = bytes(v.ramBytes, 'ramBytes');
  const enforceRam = bool(v.enforceRam, 'enforceRam');
  // The cap is the budget: there is nothing to enforce without one.
  if (enforceRam && ramBytes === null) throw new SettingsError('enforceRam', 'an enforced cap needs a RAM budget (ramBytes)');
  return {
    ramBytes,
    vramBytes: bytes(v.vramBytes, 'vramBytes'),
    gpu: checkGpu(v.gpu),
    enforceRam,
    ctx: intOrNull(v.ctx, 'ctx', LIMITS.ctx.min, LIMITS.ctx.max),
    batch: intOrNull(v.batch, 'batch', LIMITS.batch.min, LIMITS.batch.max),
    threads: intOrNull(v.threads, 'threads', LIMITS.threads.min, LIMITS.threads.max),
    parallel: int(v.parallel, 'parallel', LIMITS.parallel.min, LIMITS.parallel.max),
    policy: checkPolicy(v.policy),
    prefetchDepth: int(v.prefetchDepth, 'prefetchDepth', LIMITS.prefetchDepth.min, LIMITS.prefetchDepth.max),
    expertReadAhead: bool(v.expertReadAhead, 'expertReadAhead'),
    expertWarmStart: bool(v.expertWarmStart, 'expertWarmStart'),
    mmap: bool(v.mmap, 'mmap'),
    repack: boolOrNull(v.repack, 'repack'),
    prefault: boolOrNull(v.prefault, 'prefault'),
    graphTrace: bool(v.graphTrace, 'graphTrace'),
    ...checkDraft(v),
    rpc: checkRpc(v.rpc),
    routingTrace: pathOrNull(v.routingTrace, 'routingTrace'),
    routingTraceOut: pathOrNull(v.routingTraceOut, 'routingTraceOut'),
    expertsUsed: intOrNull(v.expertsUsed, 'expertsUsed', LIMITS.expertsUsed.min, LIMITS.expertsUsed.max),
    skipColdExperts: v.skipColdExperts === null ? null : num(v.skipColdExperts, 'skipColdExperts', LIMITS.skipColdExperts.min, LIMITS.skipColdExperts.max),
  };
}

function pathOrNull(x: unknown, field: string): string | null {
  if (x === null) return null;
  if (typeof x !== 'string' || x.trim().length === 0 || x.length > 4096) throw new SettingsError(field, 'must be a file path or null');
  return x;
}

function checkRpc(x: unknown): string[] {
  if (!Array.isArray(x) || x.some((e) => typeof e !== 'string')) throw new SettingsError('rpc', 'must be a list of host:port');
  if (x.length === 0) return [];
  try {
    return parseRpcList(x.join(','));
  } catch (e) {
    if (e instanceof RpcEndpointError) throw new SettingsError('rpc', e.message.replace(/^--rpc /, ''));
    throw e;
  }
}

function checkGpu(x: unknown): string | null {
  if (x === null) return null;
  if (typeof x !== 'string' || x.trim().length === 0 || x.length > 256) throw new SettingsError('gpu', "must be null (the default GPU), 'none', or a device's index (cuda:N for CUDA) or name");
  return x.trim();
}

function checkDraft(v: RunSettings): Pick<RunSettings, 'draft' | 'draftMax' | 'draftMin'> {
  if (v.draft !== null && (typeof v.draft !== 'string' || v.draft.length === 0)) throw new SettingsError('draft', 'must be a model path or null');
  const draftMax = int(v.draftMax, 'draftMax', Math.max(1, LIMITS.draftTokens.min), LIMITS.draftTokens.max);
  const draftMin = int(v.draftMin, 'draftMin', LIMITS.draftTokens.min, draftMax);
  const refused = draftRefusal(v.draft !== null, v.parallel);
  if (refused) throw new SettingsError('draft', refused);
  return { draft: v.draft, draftMax, draftMin };
}

/** Sampling parameters from an untrusted source, every field bounded. */
export function validateSampling(s: unknown): SamplingParams {
  if (s === null || s === undefined) return { ...DEFAULT_SAMPLING };
  if (typeof s !== 'object' || Array.isArray(s)) throw new SettingsError('sampling', 'must be an object');
  const v = { ...DEFAULT_SAMPLING, ...(s as Partial<SamplingParams>) };
  return {
    temperature: num(v.temperature, 'temperature', LIMITS.temperature.min, LIMITS.temperature.max),
    topK: int(v.topK, 'topK', LIMITS.topK.min, LIMITS.topK.max),
    topP: num(v.topP, 'topP', LIMITS.topP.min, LIMITS.topP.max),
    minP: num(v.minP, 'minP', LIMITS.minP.min, LIMITS.minP.max),
    seed: int(v.seed, 'seed', LIMITS.seed.min, LIMITS.seed.max),
    repeatPenalty: num(v.repeatPenalty, 'repeatPenalty', LIMITS.repeatPenalty.min, LIMITS.repeatPenalty.max),
    repeatLastN: int(v.repeatLastN, 'repeatLastN', LIMITS.repeatLastN.min, LIMITS.repeatLastN.max),
  };
}

export function validateMaxTokens(n: unknown): number {
  return int(n, 'maxTokens', LIMITS.maxTokens.min, LIMITS.maxTokens.max);
}
