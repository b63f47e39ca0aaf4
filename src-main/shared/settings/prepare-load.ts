// Settings → shape → plan → load: the one preparation every path that loads a model makes
// (`run`, `bench`, `sweep`, `bench-serve`, the app, `serve --model` and its API), so a load means
// the same thing wherever it starts. What cannot run is refused here, before a worker starts: a
// shape whose KV cache and compute buffer exceed the machine, and under an enforced cap a budget
// below the plan's minimum working set (it would only end in an OOM kill). Pure: the caller
// supplies the machine and the storage it measured.
import type { ModelView } from '../gguf/model-view.js';
import { planMemory } from '../plan/plan.js';
import type { DraftPlanInput, MemoryPlan, PlanInput } from '../plan/plan-types.js';
import type { LoadParams } from '../worker-protocol.js';
import { formatBytes } from '../size.js';
import { DEFAULT_KV_ELEMENT_BYTES, SettingsError, microBatch, type RunSettings } from './run-settings.js';
import { chooseRunShape, type RunShape } from './run-shape.js';
import { machineFitError } from './machine-fit.js';
import { toLoadParams } from './load-params.js';
import type { MeasuredRouting } from '../moe/measured-routing.js';
import type { TraceRouting } from '../moe/trace-routing.js';
import { scheduleKey, type ComputeLookup } from '../plan/measured-compute.js';
import type { GpuProbe } from '../gpu/gpu-choice.js';
import { gpuPlanInput, preparedGpu, refuseOverVram, resolveGpu, type PreparedGpu } from './gpu-settings.js';
import type { RpcNodeInfo } from '../remote/rpc-endpoint.js';

/** What the preparation needs to know of the machine and the model's storage. */
export interface LoadMachine {
  physicalCores: number;
  /** The machine's RAM: the non-pageable part of a run must exist at all. */
  machineBytes: number;
  diskBandwidthBytesPerS: number;
  diskBandwidthSource: string;
  /** What the kernel may read past a streamed range (0 where direct reads work). */
  readaheadBytes: number;
  /** Bytes per KV-cache element the plan assumes (default DEFAULT_KV_ELEMENT_BYTES). */
  kvTypeBytes?: number;
  /** A mixture of experts: the routing earlier runs of the file measured. */
  routing?: MeasuredRouting | null;
  /** A mixture of experts: the routing trace the run replays (the cache predicted by replaying it). */
  routeTrace?: TraceRouting | null;
  /** The GPUs the machine has (node/gpu-devices.ts); absent or null: none. */
  gpus?: GpuProbe | null;
  /** The RPC nodes the settings name, as each answered (node/rpc-node.ts), in their order. */
  rpcNodes?: readonly RpcNodeInfo[];
  /** Schedules' compute measured on the model's shadow earlier (node/compute-cache.ts); absent: none. */
  compute?: ComputeLookup;
  /** A mixture of experts: the device's rate in reads of one expert's slice (node/disk-bw.ts); absent: not measured. */
  expertRead?: { bytesPerS: number; source: string } | null;
  /** A mixture of experts: the share of the cache's reads earlier runs read ahead (node/routing-cache.ts); null: not measured. */
  readAheadShare?: number | null;
}

export interface PrepareInput {
  modelPath: string;
  view: ModelView;
  settings: RunSettings;
  machine: LoadMachine;
  /** A draft model's share of the budget for a given context. */
  draft?: (ctx: number) => DraftPlanInput;
  /** Run below the minimum anyway (the CLI's --force): the OOM kill is then the user's choice. */
  force?: boolean;
  /** The load serves an API (the app, `serve`): the plan budgets /v1/embeddings' own context. */
  serving?: boolean;
}

export interface PreparedLoad {
  settings: RunSettings;
  shape: RunShape;
  /** The plan for the budget; null without one. */
  plan: MemoryPlan | null;
  load: LoadParams;
  /** The GPU the load offloads to and the worker's variables for it; absent: none. */
  gpu?: PreparedGpu;
}

/** `ramforge prepare-load`'s answer (docs/cli-json.md): the preparation and the model's files. */
export interface PreparedLoadJson extends PreparedLoad {
  /** Every file of the model (all shards): what a cold start drops from the page cache. */
  files: string[];
}

/** The smallest context and micro-batch the hint below the minimum names. */
export const SMALLEST_HINT_SHAPE = { ctx: 256, batch: 32 } as const;

/** A shape whose KV cache and compute buffer exceed the machine's RAM. */
export class ShapeTooLargeError extends SettingsError {
  constructor(
    readonly ctx: number,
    why: string,
  ) {
    super('ctx', why);
    this.name = 'ShapeTooLargeError';
  }
}

/** An enforced cap below the plan's minimum working set: refused before anything loads. */
export class BelowMinimumError extends SettingsError {
  constructor(
    readonly capBytes: number,
    /** The shape the minimum is for. */
    readonly shape: { ctx: number; batch: number },
    /** The smallest cap that runs this model with the chosen shape. */
    readonly minimumBytes: number,
    /** With the smallest hint shape, when that needs less. */
    readonly smallShape: { ctx: number; batch: number; minimumBytes: number } | null,
    message: string,
  ) {
    super('ramBytes', message);
    this.name = 'BelowMinimumError';
    // The message is the whole sentence (the field is implied by it).
    this.message = message;
  }
}

export function prepareLoad(i: PrepareInput): PreparedLoad {
  const { settings, machine } = i;
  const shape = chooseRunShape({ view: i.view, settings: { ...settings, serving: i.serving === true }, physicalCores: machine.physicalCores, ...(i.draft ? { draft: i.draft } : {}) });
  if (settings.rpc.length > 0 && (machine.rpcNodes?.length ?? 0) !== settings.rpc.length) throw new SettingsError('rpc', 'the nodes were not asked what they hold');
  // Layers go to other machines by a plan: without a RAM budget, the machine's RAM is the budget.
  const budget = settings.ramBytes ?? (settings.rpc.length > 0 ? machine.machineBytes : null);
  const serving = i.serving === true;
  const plan = budget === null ? null : planForShape(i.view, settings, shape, machine, budget, i.draft, serving);
  // Without a budget the machine's RAM is the budget the shape must fit.
  const forMachine = plan ?? planForShape(i.view, settings, shape, machine, machine.machineBytes, undefined, serving);
  const why = machineFitError(forMachine, machine.machineBytes);
  if (why) throw new ShapeTooLargeError(shape.ctx, why);
  if (plan && !i.force) refuseBelowMinimum(i.view, settings, shape, plan, machine);
  const gpu = resolveGpu(settings, machine.gpus);
  refuseOverVram(gpu, forMachine);
  const offload = preparedGpu(gpu);
  // The device's share comes from the plan; without a RAM budget, from the machine's.
  const load = toLoadParams({ modelPath: i.modelPath, settings, shape, plan, ...(offload ? { gpu: forMachine.gpu ?? null } : {}) });
  return { settings, shape, plan, load, ...(offload && load.offload ? { gpu: offload } : {}) };
}

/** The plan of a chosen shape under `ramBytes` (`ramforge plan` shows the same one). */
export function planForShape(view: ModelView, s: RunSettings, shape: RunShape, m: LoadMachine, ramBytes: number, draft?: (ctx: number) => DraftPlanInput, serving = false): MemoryPlan {
  return planMemory(view, { ...planInput(s, shape, m, ramBytes, draft), ...(serving ? { serving: true } : {}) });
}

/**
 * Layers on RPC nodes and a VRAM tier do not combine yet: llama.cpp offloads one run of last
 * layers over all its devices, and the two tiers are planned apart (each from the last layers).
 * Refused, with the way out, rather than loaded other than planned.
 */
export function refuseRpcWithVram(s: RunSettings, vram: Pick<PlanInput, 'vramBytes'>): void {
  if (s.rpc.length > 0 && vram.vramBytes !== undefined && vram.vramBytes > 0)
    throw new SettingsError('rpc', 'with a VRAM tier does not work yet (llama.cpp spreads one run of last layers over all devices): give --gpu none and no --vram with --rpc, or leave out --rpc');
}

function planInput(s: RunSettings, shape: RunShape, m: LoadMachine, ramBytes: number, draft?: (ctx: number) => DraftPlanInput): PlanInput {
  const vram = gpuPlanInput(resolveGpu(s, m.gpus));
  refuseRpcWithVram(s, vram);
  const measured = m.compute?.(scheduleKey(s, shape, ramBytes)) ?? null;
  return {
    ramBytes,
    ...vram,
    ctx: shape.ctx,
    ubatch: microBatch(shape.batch, shape.ctx),
    threads: shape.threads,
    parallel: s.parallel,
    prefetchDepth: s.prefetchDepth,
    kvTypeBytes: m.kvTypeBytes ?? DEFAULT_KV_ELEMENT_BYTES,
    diskBandwidthBytesPerS: m.diskBandwidthBytesPerS,
    diskBandwidthSource: m.diskBandwidthSource,
    readaheadBytes: m.readaheadBytes,
    ...(m.routing ? { routing: m.routing } : {}),
    ...(m.routeTrace ? { routeTrace: m.routeTrace } : {}),
    ...(measured ? { measuredCompute: measured } : {}),
    ...(m.expertRead ? { expertRead: m.expertRead } : {}),
    ...(m.readAheadShare != null ? { readAheadShare: m.readAheadShare } : {}),
    ...(m.rpcNodes && m.rpcNodes.length > 0 ? { remote: m.rpcNodes } : {}),
    ...(draft ? { draft: draft(shape.ctx) } : {}),
  };
}

/** Under an enforced cap, a budget below the minimum working set: the smallest cap that runs, and the shape that needs less. */
function refuseBelowMinimum(view: ModelView, s: RunSettings, shape: RunShape, plan: MemoryPlan, m: LoadMachine): void {
  if (!s.enforceRam || plan.verdict !== 'cannot-run') return;
  const min = plan.quantities.minimumRamBytes.value as number;
  let small: BelowMinimumError['smallShape'] = null;
  // (The hint is the model's own: with a draft the smaller shape was already tried.)
  if (!plan.draft && (shape.ctx > SMALLEST_HINT_SHAPE.ctx || shape.batch > SMALLEST_HINT_SHAPE.batch)) {
    const p = planMemory(view, { ...plan.input, vramBytes: plan.input.vramBytes ?? undefined, threads: plan.input.threads ?? undefined, ctx: SMALLEST_HINT_SHAPE.ctx, ubatch: SMALLEST_HINT_SHAPE.batch, ...(m.rpcNodes?.length ? { remote: m.rpcNodes } : {}) });
    const smallMin = p.quantities.minimumRamBytes.value as number;
    if (smallMin < min) small = { ...SMALLEST_HINT_SHAPE, minimumBytes: smallMin };
  }
  const hint = small ? `; with context ${small.ctx} and micro-batch ${small.batch} it is ${formatBytes(small.minimumBytes)} (${small.minimumBytes} bytes)` : '';
  throw new BelowMinimumError(
    s.ramBytes as number,
    { ctx: shape.ctx, batch: shape.batch },
    min,
    small,
    `a cap of ${formatBytes(s.ramBytes as number)} is below the smallest cap that runs this model with context ${shape.ctx} and micro-batch ${shape.batch}: ` +
      `${formatBytes(min)} (${min} bytes)${hint}. Nothing was loaded.`,
  );
}
