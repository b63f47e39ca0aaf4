// The plan for an opened model under the plan flags, shared by the commands that plan (`plan`
// for files and URLs, `models` for every model found, `pull` before it downloads), so a model
// gets the same plan whichever way it is named.
import type { DraftPlanInput } from '../shared/plan/plan-types.js';
import type { MeasuredRouting } from '../shared/moe/measured-routing.js';
import type { TraceRouting } from '../shared/moe/trace-routing.js';
import type { ComputeLookup } from '../shared/plan/measured-compute.js';
import { UsageError } from '../shared/errors.js';
import { parseSize } from '../shared/size.js';
import { PlanInputError } from '../shared/plan/plan.js';
import { planForShape } from '../shared/settings/prepare-load.js';
import { totalmem } from 'node:os';
import type { MemoryPlan } from '../shared/plan/plan-types.js';
import type { ModelView } from '../shared/gguf/model-view.js';
import { DEFAULT_KV_ELEMENT_BYTES, SettingsError } from '../shared/settings/run-settings.js';
import { chooseRunShape, type RunShape } from '../shared/settings/run-shape.js';
import { physicalCores } from '../node/machine.js';
import { parseBandwidth, type DiskBandwidth } from '../node/disk-bw.js';
import type { FlagValue, ParsedArgs } from './args.js';
import type { GpuProbe } from '../shared/gpu/gpu-choice.js';
import type { RpcNodeInfo } from '../shared/remote/rpc-endpoint.js';
import { settingsFromFlags } from './flag-settings.js';
import { flagValues } from './run-flags.js';
/** What a plan needs besides the flags: the storage, the kernel's read-ahead, what is known of the model and the machine. */
export interface PlanContext {
  readonly disk: DiskBandwidth;
  readonly readaheadBytes: number;
  /** A draft model's share of the budget, for the context the shape chooses. */
  readonly draft?: (ctx: number) => DraftPlanInput;
  /** A mixture of experts: the routing earlier runs of the file measured. */
  readonly routing?: MeasuredRouting | null;
  /** A mixture of experts: the routing trace to replay (`--routing-trace`). */
  readonly routeTrace?: TraceRouting | null;
  /** The GPUs `--gpu` chooses among (null: none probed). */
  readonly gpus?: GpuProbe | null;
  /** `--rpc`: the nodes, as each answered (cli/rpc-nodes.ts). */
  readonly rpcNodes?: readonly RpcNodeInfo[];
  /** Planned as a server loads it (`plan --serve`): the embeddings context budgeted. */
  readonly serving?: boolean;
  /** Schedules' compute measured earlier on the model's shadow (`bench`), for the plan of the same schedule. */
  readonly compute?: ComputeLookup;
  /** A mixture of experts: the device's rate in reads of one expert's slice. */
  readonly expertRead?: DiskBandwidth | null;
  /** A mixture of experts: the share of its cache's reads earlier runs read ahead. */
  readonly readAheadShare?: number | null;
}

/** `--disk-bw` when given (a bad value is a UsageError), else null. */
export function givenDiskBandwidth(flags: Record<string, FlagValue | undefined>): DiskBandwidth | null {
  const given = flagValues(flags)['disk-bw'];
  if (given === undefined) return null;
  try {
    return { bytesPerS: parseBandwidth(given, parseSize), source: '--disk-bw' };
  } catch (e) {
    throw new UsageError(`--disk-bw: ${(e as Error).message}`);
  }
}

/**
 * The plan and the run shape it was made for, from the flags (`--ram` required) through the one
 * mapping to settings (settingsFromFlags). Settings or a model the planner refuses are a UsageError.
 */
export function planForView(view: ModelView, flags: ParsedArgs['flags'], c: PlanContext): { plan: MemoryPlan; shape: RunShape } {
  const settings = settingsFromFlags(flags);
  if (settings.ramBytes === null) throw new UsageError('planning needs --ram SIZE (e.g. --ram 8G)');
  try {
    // With a draft the shape makes room for it, as it does for `run --draft`.
    const shape = chooseRunShape({ view, settings: { ...settings, serving: c.serving === true }, physicalCores: physicalCores(), ...(c.draft ? { draft: c.draft } : {}) });
    const kv = flagValues(flags)['kv-bytes'] ?? DEFAULT_KV_ELEMENT_BYTES;
    const machine = { physicalCores: physicalCores(), machineBytes: totalmem(), diskBandwidthBytesPerS: c.disk.bytesPerS, diskBandwidthSource: c.disk.source, readaheadBytes: c.readaheadBytes, kvTypeBytes: kv, routing: c.routing ?? null, routeTrace: c.routeTrace ?? null, gpus: c.gpus ?? null, rpcNodes: c.rpcNodes ?? [], ...(c.compute ? { compute: c.compute } : {}), ...(c.expertRead ? { expertRead: c.expertRead } : {}), readAheadShare: c.readAheadShare ?? null };
    const plan = planForShape(view, settings, shape, machine, settings.ramBytes, c.draft, c.serving === true);
    return { plan, shape };
  } catch (e) {
    if (e instanceof PlanInputError || e instanceof SettingsError) throw new UsageError(e.message);
    throw e;
  }
}
