// Flags shared by `run` and `bench`: model loading, sampling, memory caps and residency.
import type { FlagSpec } from './args.js';
import { DEFAULT_ENFORCE_TIMEOUT_S, DEFAULT_GRAPH_TRACE_EVENTS, DEFAULT_MAX_TOKENS, DEFAULT_PREFETCH_DEPTH, DEFAULT_RUN_SETTINGS as D, DEFAULT_SAMPLING as S, LIMITS as L } from '../shared/settings/run-settings.js';

export const SAMPLING_FLAGS: FlagSpec[] = [
  { name: 'max-tokens', short: 'n', type: 'int', default: DEFAULT_MAX_TOKENS, range: L.maxTokens, description: 'tokens to generate at most' },
  { name: 'temperature', type: 'number', default: S.temperature, range: L.temperature, description: 'sampling temperature; 0 = greedy' },
  { name: 'top-k', type: 'int', default: S.topK, range: L.topK, description: 'keep the k most likely tokens (0 = off)' },
  { name: 'top-p', type: 'number', default: S.topP, range: L.topP, description: 'nucleus sampling threshold (1 = off)' },
  { name: 'min-p', type: 'number', default: S.minP, range: L.minP, description: 'drop tokens below min-p × the top probability (0 = off)' },
  { name: 'seed', type: 'int', default: S.seed, range: L.seed, description: 'sampling seed (4294967295 = random)' },
  { name: 'repeat-penalty', type: 'number', default: S.repeatPenalty, range: L.repeatPenalty, description: 'penalty for repeated tokens (1 = off)' },
  { name: 'repeat-last-n', type: 'int', default: S.repeatLastN, range: L.repeatLastN, description: 'how many recent tokens the repeat penalty looks at (-1 = the whole context)' },
];

export const LOAD_FLAGS: FlagSpec[] = [
  { name: 'ctx', short: 'c', type: 'int', range: L.ctx, description: "context size in tokens (default: the model's, at most 4096, shrunk to fit the cap; at least 2048 where the cap allows)" },
  { name: 'threads', short: 't', type: 'int', range: L.threads, description: "CPU threads (default: the machine's physical cores)" },
  { name: 'parallel', short: 'np', type: 'int', default: 1, range: L.parallel, description: 'requests decoded together, each with its own context of --ctx tokens (the API server and bench-serve; the plan counts their KV caches)' },
  { name: 'batch', short: 'b', type: 'int', range: L.batch, description: 'micro-batch, also the prompt batch (default: 512, smaller under a cap so the compute buffer stays within 1/16 of it)' },
  { name: 'mmap', type: 'boolean', default: true, description: 'memory-map the model (--no-mmap reads it into RAM)' },
  { name: 'repack', type: 'boolean', description: 'repack weights for faster CPU kernels (default on, off under residency policies that release pages)' },
  { name: 'prefetch', type: 'boolean', description: 'prefault the whole file at load; --no-prefetch faults in on demand (default: prefault unless the plan says the model does not fit)' },
  { name: 'gpu-layers', type: 'int', default: 0, range: L.gpuLayers, description: 'layers to offload to a GPU backend (none is built here)' },
  { name: 'draft', short: 'md', type: 'string', valueName: 'MODEL', description: 'speculative decoding: a small model with the same vocabulary proposes tokens, the model verifies them in one pass (weights it shares byte for byte are not loaded twice)' },
  { name: 'draft-max', type: 'int', default: D.draftMax, range: { min: 1, max: L.draftTokens.max }, description: 'most tokens drafted per pass (the engine adapts k to the measured acceptance)' },
  { name: 'draft-min', type: 'int', default: D.draftMin, range: L.draftTokens, description: 'tokens drafted per pass even when the draft is unsure' },
];

export const MEMORY_FLAGS: FlagSpec[] = [
  { name: 'ram', type: 'size', description: 'RAM budget, e.g. 8G, 512MiB (the plan is made for it)' },
  { name: 'vram', type: 'size', description: "VRAM budget: the output head and the last layers go to the GPU, an MoE's dense part first (default: the GPU's free memory less a margin)" },
  { name: 'gpu', type: 'string', valueName: 'DEVICE|none', description: "the GPU to offload to: its index or part of its name (`ramforge devices`), or none (default: the first hardware GPU; a software device only when named)" },
  { name: 'enforce-ram', type: 'boolean', description: 'hold the worker to --ram with a kernel memory cgroup' },
  { name: 'rpc', type: 'string', valueName: 'HOST:PORT,…', description: "llama.cpp RPC nodes (`ramforge rpc-server` on each) that hold the last layers in their RAM; the plan asks each what it offers (trusted networks only: the protocol has no authentication)" },
  { name: 'enforce-timeout', type: 'number', default: DEFAULT_ENFORCE_TIMEOUT_S, valueName: 'SECONDS', range: L.timeoutS, description: 'with --enforce-ram: kill the run after this long (exit 124)' },
  { name: 'memory-report', type: 'boolean', description: 'print the cgroup figures (limit, peak, limit hits, OOM kills) on stderr' },
  { name: 'policy', type: 'string', valueName: 'NAME', description: 'residency policy: off|observe|conservative|memory-bound|reuse-aware|stream (default: stream when the plan says the model does not fit, else off)' },
  { name: 'prefetch-depth', type: 'int', default: DEFAULT_PREFETCH_DEPTH, range: L.prefetchDepth, description: 'stream: units read ahead of the one in use, at most (fewer where one layer streams fewer)' },
  { name: 'force', type: 'boolean', description: 'with --enforce-ram: run even below the smallest cap the plan says runs (an OOM kill, exit 137, is then the likely outcome)' },
  { name: 'residency-target', type: 'size', description: 'memory-bound/reuse-aware: release toward this many resident bytes' },
  { name: 'residency-reserve', type: 'size', description: 'bytes kept free below --residency-target' },
  { name: 'release-layer', type: 'int', repeatable: true, valueName: 'N', range: L.layer, description: "drop layer N's exclusive pages after load (repeatable); the report shows requested, accepted and observed bytes" },
  { name: 'release-mapping-pages', type: 'boolean', description: 'drop every mapping page not held by a pinned layer after load' },
  { name: 'inspect-layer', type: 'int', valueName: 'N', range: L.layer, description: "print layer N's tensors: file and address ranges, pages, backing, sharing, residency" },
  { name: 'graph-trace', type: 'boolean', description: "capture one decode's scheduler graph (node groups, weights, last use) into the report" },
  { name: 'graph-trace-events', type: 'int', default: DEFAULT_GRAPH_TRACE_EVENTS, valueName: 'N', range: L.graphTraceEvents, description: 'bound on captured node events; beyond it the trace is marked incomplete' },
  { name: 'graph-trace-detail', type: 'boolean', description: 'keep every traced node in the report, not only groups and tensors' },
  { name: 'disk-bw', type: 'string', valueName: 'SIZE/s', description: 'storage read bandwidth for the plan, e.g. 2G or 500MB/s (default: the cached measurement of this device)' },
];
