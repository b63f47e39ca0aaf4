// Settings + shape + plan → what the worker loads with. The one mapping every host (CLI run and
// bench, the app, the API server) uses, so a run means the same thing wherever it starts. Pure.
import type { GpuPlan, MemoryPlan } from '../plan/plan-types.js';
import { DEFAULT_READAHEAD_BYTES } from '../plan/stream-select.js';
import { releasesPages } from '../policy-rules.js';
import type { LoadParams, PolicyName } from '../worker-protocol.js';
import { DEFAULT_GRAPH_TRACE_EVENTS, type RunSettings } from './run-settings.js';
import type { RunShape } from './run-shape.js';

/** 'auto' streams when the plan says the model does not fit, else runs plain llama.cpp. */
export function resolvePolicy(policy: RunSettings['policy'], plan: MemoryPlan | null): PolicyName {
  if (policy !== 'auto') return policy;
  return plan && plan.verdict !== 'fits' ? 'stream' : 'off';
}

export interface LoadInput {
  modelPath: string;
  settings: RunSettings;
  shape: RunShape;
  plan: MemoryPlan | null;
  /** A policy decided by the caller (bench runs each one); else resolved from settings + plan. */
  policy?: PolicyName;
  /** The VRAM tier to load (default: the plan's, when it names a device). */
  gpu?: GpuPlan | null;
}

/**
 * Whether a load repacks its weights into the CPU kernels' layouts. Repacked weights live in
 * anonymous memory: out of reach of page release and streaming, and with no swap they can never
 * leave RAM. A stream run whose plan fits streams nothing: it runs from RAM as off does, with
 * the same (faster) repacked kernels — an MoE's experts too, where the kernels take them.
 * `verdict` null: no plan (a stream run then never repacks).
 */
export function repackFor(policy: PolicyName, repack: boolean | null, verdict: MemoryPlan['verdict'] | null): boolean {
  const outOfCore = verdict !== null && verdict !== 'fits';
  const streamsNothing = policy === 'stream' && verdict === 'fits';
  if (releasesPages(policy) && !streamsNothing) return false;
  return repack ?? !outOfCore;
}

/**
 * One weight layout for a side-by-side comparison of policies (`bench`, the app's compare):
 * repacked and plain Q4_0 kernels round differently, so the layout is repacked only where every
 * policy's own load would be. `off` beside a `stream` that streams nothing is then repacked in
 * both, as each would run alone.
 */
export function comparisonRepack(policies: readonly PolicyName[], repack: boolean | null, verdict: MemoryPlan['verdict'] | null): boolean {
  return policies.every((p) => repackFor(p, repack, verdict));
}

/**
 * Whether the context gets the scheduler's eval callback. It splits the graph wherever it asks
 * (each split a barrier of the compute threads), so only what needs it has it: the stream
 * schedule when weights stream, reuse-aware's profile, the graph trace. A stream run whose plan
 * fits (an MoE whose every expert is held) runs without it, as off does.
 */
export function layerCallbackFor(params: LoadParams): boolean {
  const streams = params.policy === 'stream' && (params.stream?.tensors.length ?? 0) > 0;
  return params.graphTrace !== undefined || params.policy === 'reuse-aware' || streams;
}

export function toLoadParams(i: LoadInput): LoadParams {
  const s = i.settings;
  const policy = i.policy ?? resolvePolicy(s.policy, i.plan);
  const outOfCore = i.plan !== null && i.plan.verdict !== 'fits';
  const p: LoadParams = {
    modelPath: i.modelPath,
    mmap: s.mmap,
    repack: repackFor(policy, s.repack, i.plan?.verdict ?? null),
    // Prefaulting a model that does not fit reads it once only for the cap to evict it again.
    prefault: s.prefault ?? !outOfCore,
    ctx: i.shape.ctx,
    batch: i.shape.batch,
    threads: i.shape.threads,
    parallel: s.parallel,
    policy,
    prefetchDepth: s.prefetchDepth,
  };
  if (s.ramBytes !== null) p.ramBytes = s.ramBytes;
  if (!s.expertReadAhead) p.expertReadAhead = false;
  if (s.expertWarmStart) p.expertWarmStart = true;
  if (policy === 'stream' && s.repack === true && !p.repack) p.repackExperts = true;
  // The routing tap: a trace replayed or written; under the stream policy of a model that does
  // not fit, the routing kept to set the expert cache's reads against Belady's optimum.
  const routing = {
    ...(s.routingTrace !== null ? { trace: s.routingTrace } : {}),
    ...(s.routingTraceOut !== null ? { out: s.routingTraceOut } : {}),
    ...(policy === 'stream' && outOfCore ? { optimum: true } : {}),
  };
  if (Object.keys(routing).length > 0) p.routing = routing;
  if (s.draft !== null) p.draft = { modelPath: s.draft, max: s.draftMax, min: s.draftMin };
  if (s.expertsUsed !== null) p.expertsUsed = s.expertsUsed;
  if (s.skipColdExperts !== null) p.skipColdExperts = s.skipColdExperts;
  if (i.plan) {
    p.tiers = i.plan.layers.map((l) => l.tier);
    p.stream = {
      tensors: i.plan.stream?.tensors ?? [],
      prefetchDepth: s.prefetchDepth,
      readaheadBytes: i.plan.stream?.readaheadBytes ?? DEFAULT_READAHEAD_BYTES,
      computeReserveBytes: i.plan.quantities.computeBufferBytes.value ?? 0,
      embeddingsReserveBytes: i.plan.quantities.embeddingsBytes?.value ?? 0,
    };
    // What the policies that release pages keep resident: the plan's pinned bytes.
    // (`?.`: a plan from another process may lack the figure.)
    const pinned = i.plan.quantities.pinnedBytes?.value ?? null;
    if (pinned !== null) p.residencyTargetBytes = pinned;
  }
  const remote = i.plan?.remote;
  if (remote && remote.layerCount > 0) {
    // The nodes in the plan's order hold the last layers; the local layers keep the schedule.
    // n_gpu_layers counts the output head, which goes with the last block (place-remote.ts).
    p.offload = {
      layers: remote.layerCount + 1,
      devices: remote.nodes.map((n) => `rpc:${n.endpoint}`),
      split: remote.split,
      rpcServers: remote.nodes.map((n) => n.endpoint),
      ...(remote.cpuTensors.length > 0 ? { cpuTensors: remote.cpuTensors } : {}),
    };
  }
  // The VRAM tier: llama.cpp's n_gpu_layers on the plan's device, an MoE's experts kept on the CPU.
  const gpu = i.gpu === undefined ? (i.plan?.gpu ?? null) : i.gpu;
  if (!p.offload && gpu && gpu.device !== null && gpu.gpuLayers > 0) {
    p.offload = {
      layers: gpu.gpuLayers,
      devices: [gpu.device],
      split: [gpu.gpuLayers],
      rpcServers: [],
      ...(gpu.cpuTensors.length > 0 ? { cpuTensors: gpu.cpuTensors } : {}),
      budgetBytes: gpu.quantities.budgetBytes.value as number,
      plannedBytes: gpu.quantities.usedBytes.value as number,
      ...(gpu.deviceExperts ? { deviceExperts: { slotsPerLayer: gpu.deviceExperts.slotsPerLayer } } : {}),
    };
  }
  // The trace view's data: recorded once at load (a few hundred node events per layer).
  if (s.graphTrace) p.graphTrace = { maxEvents: DEFAULT_GRAPH_TRACE_EVENTS, detail: false };
  return p;
}
