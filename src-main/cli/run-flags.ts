// The one table of the flags commands share: each declared once, with one help text, its type,
// range and default from the settings module. Commands draw their flags from it (`FLAGS.ram`,
// or a group below); a new shared flag is one entry here. `flagValues` reads parsed flags with
// the types the table gives them.
import type { FlagSpec, FlagValue, FlagValueOf } from './args.js';
import {
  DEFAULT_CTX,
  DEFAULT_ENFORCE_TIMEOUT_S,
  DEFAULT_GRAPH_TRACE_EVENTS,
  DEFAULT_KV_ELEMENT_BYTES,
  DEFAULT_MAX_TOKENS,
  DEFAULT_PREFETCH_DEPTH,
  DEFAULT_RUN_SETTINGS as D,
  DEFAULT_SAMPLING as S,
  LIMITS as L,
  MAX_UBATCH,
} from '../shared/settings/run-settings.js';
import { MIN_DEFAULT_CTX } from '../shared/settings/run-shape.js';
import { POLICIES } from '../shared/worker-protocol.js';

type Entry = Omit<FlagSpec, 'name'>;

/** The table with each entry's key as its name. */
function named<T extends Record<string, Entry>>(t: T): { readonly [K in keyof T]: T[K] & { readonly name: K } } {
  return Object.fromEntries(Object.entries(t).map(([name, e]) => [name, { name, ...e }])) as { readonly [K in keyof T]: T[K] & { readonly name: K } };
}

export const FLAGS = named({
  // Sampling
  'max-tokens': { short: 'n', aliases: ['n-predict'], type: 'int', default: DEFAULT_MAX_TOKENS, range: L.maxTokens, description: 'tokens to generate at most' },
  temperature: { aliases: ['temp'], type: 'number', default: S.temperature, range: L.temperature, description: 'sampling temperature; 0 = greedy' },
  'top-k': { type: 'int', default: S.topK, range: L.topK, description: 'keep the k most likely tokens (0 = off)' },
  'top-p': { type: 'number', default: S.topP, range: L.topP, description: 'nucleus sampling threshold (1 = off)' },
  'min-p': { type: 'number', default: S.minP, range: L.minP, description: 'drop tokens below min-p × the top probability (0 = off)' },
  seed: { type: 'int', default: S.seed, range: L.seed, description: 'sampling seed (4294967295 = random)' },
  'repeat-penalty': { type: 'number', default: S.repeatPenalty, range: L.repeatPenalty, description: 'penalty for repeated tokens (1 = off)' },
  'repeat-last-n': { type: 'int', default: S.repeatLastN, range: L.repeatLastN, description: 'how many recent tokens the repeat penalty looks at (-1 = the whole context)' },
  // The run's shape and the model's load
  ctx: { short: 'c', aliases: ['ctx-size'], type: 'int', range: L.ctx, description: `context per sequence in tokens (default: the model's, at most ${DEFAULT_CTX}, shrunk to fit the cap; at least ${MIN_DEFAULT_CTX} where the cap allows)` },
  threads: { short: 't', type: 'int', range: L.threads, description: "CPU threads (default: the machine's physical cores)" },
  parallel: { short: 'np', type: 'int', range: L.parallel, description: 'requests decoded together, each with its own context of --ctx tokens (default 1; serve --api chooses the most of 4, 2, 1 whose KV caches fit the plan; the plan counts their KV caches)' },
  batch: { short: 'b', aliases: ['batch-size'], type: 'int', range: L.batch, description: `micro-batch, also the prompt batch (default: ${MAX_UBATCH}, smaller under a cap so the compute buffer stays within 1/16 of it)` },
  mmap: { type: 'boolean', default: true, description: 'memory-map the model (--no-mmap reads it into RAM)' },
  repack: { type: 'boolean', description: 'repack weights for faster CPU kernels (default on, off under residency policies that release pages; given under stream for a mixture of experts that does not fit, the expert cache slots are repacked instead)' },
  prefetch: { type: 'boolean', description: 'prefault the whole file at load; --no-prefetch faults in on demand (default: prefault unless the plan says the model does not fit)' },
  'gpu-layers': { type: 'int', default: 0, range: L.gpuLayers, description: 'unused: the plan puts layers on the GPU (--gpu, --vram); kept so scripts that pass 0 still run' },
  draft: { short: 'md', type: 'string', valueName: 'MODEL', description: 'speculative decoding: a small model with the same vocabulary proposes tokens, the model verifies them in one pass (weights it shares byte for byte are not loaded twice)' },
  'draft-max': { type: 'int', default: D.draftMax, range: { min: 1, max: L.draftTokens.max }, description: 'most tokens drafted per pass (the engine adapts k to the measured acceptance)' },
  'draft-min': { type: 'int', default: D.draftMin, range: L.draftTokens, description: 'tokens drafted per pass even when the draft is unsure' },
  // Memory: budgets, caps, residency
  ram: { type: 'size', valueName: 'SIZE', description: 'RAM budget, e.g. 8G, 8GiB, 512MiB, 1.5G (KB/MB/GB are decimal): the plan is made for it' },
  vram: { type: 'size', valueName: 'SIZE', description: "VRAM budget: the output head and the last layers go to the GPU, an MoE's dense part first (default: the GPU's free memory less a margin)" },
  gpu: { type: 'string', valueName: 'DEVICE|none', description: "the GPU to offload to: a Vulkan index, cuda:N, or part of its name (`ramforge devices`), or none (default: the first CUDA device, else the first hardware Vulkan GPU; a software device only when named)" },
  'enforce-ram': { type: 'boolean', description: 'hold the worker to --ram with a kernel memory cgroup' },
  rpc: { type: 'string', valueName: 'HOST:PORT,…', description: "llama.cpp RPC nodes (`ramforge rpc-server` on each) that hold the last layers in their RAM; the plan asks each what it offers (trusted networks only: the protocol has no authentication)" },
  'enforce-timeout': { type: 'number', default: DEFAULT_ENFORCE_TIMEOUT_S, valueName: 'SECONDS', range: L.timeoutS, description: 'with --enforce-ram: kill the run after this long (exit 124)' },
  'memory-report': { type: 'boolean', description: 'print the cgroup figures (limit, peak, limit hits, OOM kills) on stderr' },
  policy: { type: 'string', valueName: 'NAME', description: `residency policy: ${POLICIES.join('|')} (default: stream when the plan says the model does not fit, else off)` },
  'prefetch-depth': { type: 'int', default: DEFAULT_PREFETCH_DEPTH, range: L.prefetchDepth, description: 'stream: units read ahead of the one in use, at most (fewer where one layer streams fewer)' },
  'expert-warm-start': { type: 'boolean', default: D.expertWarmStart, description: 'a mixture of experts under the expert cache: read into it at load the experts earlier runs of the same file were routed to most, so decode starts warm (off by default: measured within the noise so far)' },
  'expert-read-ahead': { type: 'boolean', default: D.expertReadAhead, description: "a mixture of experts under the expert cache: read the next layer's predicted experts ahead while the predictions are measured to pay (--no-expert-read-ahead: never)" },
  'kv-bytes': { type: 'number', default: DEFAULT_KV_ELEMENT_BYTES, range: L.kvElementBytes, description: 'bytes per KV-cache element the plan assumes (f16 = 2, q8_0 ≈ 1.0625)' },
  force: { type: 'boolean', description: 'with --enforce-ram: run even below the smallest cap the plan says runs (an OOM kill, exit 137, is then the likely outcome)' },
  'residency-target': { type: 'size', description: 'memory-bound/reuse-aware: release toward this many resident bytes' },
  'residency-reserve': { type: 'size', description: 'bytes kept free below --residency-target' },
  'release-layer': { type: 'int', repeatable: true, valueName: 'N', range: L.layer, description: "drop layer N's exclusive pages after load (repeatable); the report shows requested, accepted and observed bytes" },
  'release-mapping-pages': { type: 'boolean', description: 'drop every mapping page not held by a pinned layer after load' },
  'inspect-layer': { type: 'int', valueName: 'N', range: L.layer, description: "print layer N's tensors: file and address ranges, pages, backing, sharing, residency" },
  'graph-trace': { type: 'boolean', description: "capture one decode's scheduler graph (node groups, weights, last use) into the report" },
  'graph-trace-events': { type: 'int', default: DEFAULT_GRAPH_TRACE_EVENTS, valueName: 'N', range: L.graphTraceEvents, description: 'bound on captured node events; beyond it the trace is marked incomplete' },
  'graph-trace-detail': { type: 'boolean', description: 'keep every traced node in the report, not only groups and tensors' },
  'routing-trace': { type: 'string', valueName: 'FILE', description: "a mixture of experts: replay this routing trace (`# route_trace v1` CSV, e.g. one --routing-trace-out wrote) in place of the routers' choices, on a model with the same MoE layers, experts and experts per token; the same tokens under every policy" },
  'experts-used': { type: 'int', range: L.expertsUsed, description: "LOSSY (changes the answer): a mixture of experts uses N experts per token instead of its own number (llama.cpp's --override-kv ARCH.expert_used_count=int:N); bench: each policy also runs with it, its teacher-forced agreement with the full model beside its speed" },
  'skip-cold-experts': { type: 'number', range: L.skipColdExperts, valueName: 'W', description: 'LOSSY (changes the answer): under the expert cache, a decoded token skips an expert that is not cached and that its router gave less than W of its weight (e.g. 0.05), instead of reading it; bench: each policy also runs with it, with its teacher-forced agreement' },
  'routing-trace-out': { type: 'string', valueName: 'FILE', description: 'a mixture of experts: write the routing (per token and MoE layer, the experts chosen and their weights) to FILE as a `# route_trace v1` CSV (bench: the last run\'s)' },
  'disk-bw': { type: 'string', valueName: 'SIZE/s', description: 'storage read bandwidth for the plan, e.g. 2G or 500MB/s (default: the cached measurement of this device)' },
} as const);

export type FlagName = keyof typeof FLAGS;

/** The table's flags by name, in the order given. */
export function flagsNamed(...names: FlagName[]): FlagSpec[] {
  return names.map((n) => FLAGS[n]);
}

export const SAMPLING_FLAGS: FlagSpec[] = flagsNamed('max-tokens', 'temperature', 'top-k', 'top-p', 'min-p', 'seed', 'repeat-penalty', 'repeat-last-n');

export const LOAD_FLAGS: FlagSpec[] = flagsNamed('ctx', 'threads', 'parallel', 'batch', 'mmap', 'repack', 'prefetch', 'gpu-layers', 'draft', 'draft-max', 'draft-min', 'routing-trace', 'routing-trace-out', 'experts-used', 'skip-cold-experts');

export const MEMORY_FLAGS: FlagSpec[] = flagsNamed(
  'ram', 'vram', 'gpu', 'enforce-ram', 'rpc', 'enforce-timeout', 'memory-report', 'policy', 'prefetch-depth', 'expert-read-ahead', 'expert-warm-start', 'force', 'residency-target', 'residency-reserve',
  'release-layer', 'release-mapping-pages', 'inspect-layer', 'graph-trace', 'graph-trace-events', 'graph-trace-detail', 'disk-bw',
);

/**
 * The table's flags with their types: a flag with a default always has a value (a command that
 * draws it gets the default), others may be undefined.
 */
export type FlagValues = { readonly [K in FlagName]: (typeof FLAGS)[K] extends { readonly default: unknown } ? FlagValueOf<(typeof FLAGS)[K]> : FlagValueOf<(typeof FLAGS)[K]> | undefined };

/** Parsed flags read with the table's types (the parser checked each against its spec). */
export function flagValues(flags: Readonly<Record<string, FlagValue | undefined>>): FlagValues {
  return flags as unknown as FlagValues;
}
