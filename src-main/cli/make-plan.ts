// The plan for an opened model under the plan flags, shared by the commands that plan (`plan`
// for files and URLs, `models` for every model found, `pull` before it downloads), so a model
// gets the same plan whichever way it is named.
import type { DraftPlanInput } from '../shared/plan/plan-types.js';
import type { MeasuredRouting } from '../shared/moe/measured-routing.js';
import { UsageError } from '../shared/errors.js';
import { parseSize } from '../shared/size.js';
import { PlanInputError } from '../shared/plan/plan.js';
import { planForShape } from '../shared/settings/prepare-load.js';
import { totalmem } from 'node:os';
import type { MemoryPlan } from '../shared/plan/plan-types.js';
import type { ModelView } from '../shared/gguf/model-view.js';
import { DEFAULT_KV_ELEMENT_BYTES, DEFAULT_PREFETCH_DEPTH, SettingsError, validateRunSettings } from '../shared/settings/run-settings.js';
import { chooseRunShape, type RunShape } from '../shared/settings/run-shape.js';
import { physicalCores } from '../node/machine.js';
import { parseBandwidth, type DiskBandwidth } from '../node/disk-bw.js';
import type { FlagValue } from './args.js';
import type { GpuProbe } from '../shared/gpu/gpu-choice.js';

import type { RpcNodeInfo } from '../shared/remote/rpc-endpoint.js';
export interface PlanFlags {
  readonly ram: number;
  readonly vram?: number;
  /** `--gpu`: the device the VRAM budget is on (null/absent: the first hardware GPU), among `gpus`. */
  readonly gpu?: string;
  readonly gpus?: GpuProbe | null;
  readonly ctx?: number;
  readonly batch?: number;
  readonly threads?: number;
  readonly parallel?: number;
  readonly prefetchDepth?: number;
  readonly kvBytes?: number;
  /** A draft model's share of the budget, for the context the shape chooses. */
  readonly draft?: (ctx: number) => DraftPlanInput;
  /** A mixture of experts: the routing earlier runs of the file measured. */
  readonly routing?: MeasuredRouting | null;
  /** `--rpc`: the nodes, as each answered (cli/rpc-nodes.ts). */
  readonly rpcNodes?: readonly RpcNodeInfo[];
}

/** The plan flags as `plan` declares them (a command without one of them leaves it undefined). */
export function planFlagsFrom(flags: Record<string, FlagValue | undefined>, ram: number): PlanFlags {
  return {
    ram,
    vram: flags.vram as number | undefined,
    gpu: flags.gpu as string | undefined,
    ctx: flags.ctx as number | undefined,
    batch: flags.batch as number | undefined,
    threads: flags.threads as number | undefined,
    parallel: flags.parallel as number | undefined,
    prefetchDepth: flags['prefetch-depth'] as number | undefined,
    kvBytes: flags['kv-bytes'] as number | undefined,
  };
}

/** `--disk-bw` when given (a bad value is a UsageError), else null. */
export function givenDiskBandwidth(flags: Record<string, FlagValue | undefined>): DiskBandwidth | null {
  const given = flags['disk-bw'] as string | undefined;
  if (given === undefined) return null;
  try {
    return { bytesPerS: parseBandwidth(given, parseSize), source: '--disk-bw' };
  } catch (e) {
    throw new UsageError(`--disk-bw: ${(e as Error).message}`);
  }
}

/** The plan and the run shape it was made for. Settings or a model the planner refuses are a UsageError. */
export function planForView(view: ModelView, f: PlanFlags, disk: DiskBandwidth, readaheadBytes: number): { plan: MemoryPlan; shape: RunShape } {
  try {
    const settings = validateRunSettings({
      ramBytes: f.ram,
      vramBytes: f.vram ?? null,
      gpu: f.gpu ?? null,
      ctx: f.ctx ?? null,
      batch: f.batch ?? null,
      threads: f.threads ?? null,
      parallel: f.parallel ?? 1,
      prefetchDepth: f.prefetchDepth ?? DEFAULT_PREFETCH_DEPTH,
      rpc: (f.rpcNodes ?? []).map((n) => n.endpoint),
    });
    // With a draft the shape makes room for it, as it does for `run --draft`.
    const shape = chooseRunShape({ view, settings, physicalCores: physicalCores(), ...(f.draft ? { draft: f.draft } : {}) });
    const machine = { physicalCores: physicalCores(), machineBytes: totalmem(), diskBandwidthBytesPerS: disk.bytesPerS, diskBandwidthSource: disk.source, readaheadBytes, kvTypeBytes: f.kvBytes ?? DEFAULT_KV_ELEMENT_BYTES, routing: f.routing ?? null, gpus: f.gpus ?? null, rpcNodes: f.rpcNodes ?? [] };
    const plan = planForShape(view, settings, shape, machine, f.ram, f.draft);
    return { plan, shape };
  } catch (e) {
    if (e instanceof PlanInputError || e instanceof SettingsError) throw new UsageError(e.message);
    throw e;
  }
}
