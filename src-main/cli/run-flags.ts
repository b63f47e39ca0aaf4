// Flags shared by `run` and `bench`: model loading, sampling, memory caps and residency.
import type { FlagSpec } from './args.js';

export const SAMPLING_FLAGS: FlagSpec[] = [
  { name: 'max-tokens', short: 'n', type: 'int', default: 128, description: 'tokens to generate at most' },
  { name: 'temperature', type: 'number', default: 0.8, description: 'sampling temperature; 0 = greedy' },
  { name: 'top-k', type: 'int', default: 40, description: 'keep the k most likely tokens (0 = off)' },
  { name: 'top-p', type: 'number', default: 0.95, description: 'nucleus sampling threshold (1 = off)' },
  { name: 'min-p', type: 'number', default: 0.05, description: 'drop tokens below min-p × the top probability (0 = off)' },
  { name: 'seed', type: 'int', default: 4294967295, description: 'sampling seed (4294967295 = random)' },
  { name: 'repeat-penalty', type: 'number', default: 1.0, description: 'penalty for repeated tokens (1 = off)' },
  { name: 'repeat-last-n', type: 'int', default: 64, description: 'how many recent tokens the repeat penalty looks at' },
];

export const LOAD_FLAGS: FlagSpec[] = [
  { name: 'ctx', short: 'c', type: 'int', default: 4096, description: 'context size in tokens' },
  { name: 'threads', short: 't', type: 'int', description: 'CPU threads (default: llama.cpp picks)' },
  { name: 'batch', short: 'b', type: 'int', default: 512, description: 'prompt batch size' },
  { name: 'mmap', type: 'boolean', default: true, description: 'memory-map the model (--no-mmap reads it into RAM)' },
  { name: 'repack', type: 'boolean', description: 'repack weights for faster CPU kernels (default on, off under residency policies that release pages)' },
  { name: 'prefetch', type: 'boolean', description: 'prefault the whole file at load; --no-prefetch faults in on demand (default: prefault unless the plan says the model does not fit)' },
  { name: 'gpu-layers', type: 'int', default: 0, description: 'layers to offload to a GPU backend (none is built here)' },
];

export const MEMORY_FLAGS: FlagSpec[] = [
  { name: 'ram', type: 'size', description: 'RAM budget, e.g. 8G, 512MiB (the plan is made for it)' },
  { name: 'vram', type: 'size', description: 'VRAM budget for the plan' },
  { name: 'enforce-ram', type: 'boolean', description: 'hold the worker to --ram with a kernel memory cgroup' },
  { name: 'enforce-timeout', type: 'number', default: 900, valueName: 'SECONDS', description: 'with --enforce-ram: kill the run after this long (exit 124)' },
  { name: 'memory-report', type: 'boolean', description: 'print the cgroup figures (limit, peak, limit hits, OOM kills) on stderr' },
  { name: 'policy', type: 'string', valueName: 'NAME', description: 'residency policy: off|observe|conservative|memory-bound|reuse-aware|stream (default: stream when the plan says the model does not fit, else off)' },
  { name: 'prefetch-depth', type: 'int', default: 3, description: 'stream: layers read ahead of the one computing' },
  { name: 'residency-target', type: 'size', description: 'memory-bound/reuse-aware: release toward this many resident bytes' },
  { name: 'residency-reserve', type: 'size', description: 'bytes kept free below --residency-target' },
  { name: 'release-layer', type: 'int', repeatable: true, valueName: 'N', description: "drop layer N's exclusive pages after load (repeatable); the report shows requested, accepted and observed bytes" },
  { name: 'release-mapping-pages', type: 'boolean', description: 'drop every mapping page not held by a pinned layer after load' },
  { name: 'inspect-layer', type: 'int', valueName: 'N', description: "print layer N's tensors: file and address ranges, pages, backing, sharing, residency" },
  { name: 'graph-trace', type: 'boolean', description: "capture one decode's scheduler graph (node groups, weights, last use) into the report" },
  { name: 'graph-trace-events', type: 'int', default: 100000, valueName: 'N', description: 'bound on captured node events; beyond it the trace is marked incomplete' },
  { name: 'graph-trace-detail', type: 'boolean', description: 'keep every traced node in the report, not only groups and tensors' },
  { name: 'disk-bw', type: 'size', valueName: 'SIZE', description: 'storage read bandwidth per second for the plan, e.g. 2G (default: measured)' },
];
