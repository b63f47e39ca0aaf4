// Turns parsed flags into what a run needs: load params (with the plan's tiers), generation
// params and the cap. Shared by `run` and `bench`.
import type { ParsedArgs } from './args.js';
import { releasesPages } from '../shared/policy-rules.js';
import { UsageError } from './errors.js';
import type { OpenedModel } from '../node/gguf-file.js';
import { planMemory, type MemoryPlan } from '../shared/plan/plan.js';
import { POLICIES, type GenerateParams, type LoadParams, type PolicyName } from '../shared/worker-protocol.js';

/** Used by the plan when neither --disk-bw nor a measurement is available. */
export const ASSUMED_DISK_BW = 1e9;

export function parsePolicy(v: unknown): PolicyName | null {
  if (v === undefined) return null;
  if (typeof v !== 'string' || !(POLICIES as readonly string[]).includes(v)) {
    throw new UsageError(`--policy must be one of ${POLICIES.join(', ')}; got '${String(v)}'`);
  }
  return v as PolicyName;
}

export function makePlan(opened: OpenedModel, f: ParsedArgs['flags']): MemoryPlan | null {
  const ram = f['ram'] as number | undefined;
  if (ram === undefined) return null;
  return planMemory(opened.view, {
    ramBytes: ram,
    vramBytes: f['vram'] as number | undefined,
    ctx: f['ctx'] as number,
    diskBandwidthBytesPerS: (f['disk-bw'] as number | undefined) ?? ASSUMED_DISK_BW,
    diskBandwidthSource: f['disk-bw'] !== undefined ? '--disk-bw' : 'assumed 1 GB/s (pass --disk-bw)',
    prefetchDepth: f['prefetch-depth'] as number,
    // The compute buffer is sized for llama.cpp's micro-batch: min(batch, 512).
    ubatch: Math.min(f['batch'] as number, 512, f['ctx'] as number),
  });
}

export function loadParams(modelPath: string, f: ParsedArgs['flags'], policy: PolicyName, plan: MemoryPlan | null): LoadParams {
  const releasing = releasesPages(policy) || f['release-layer'] !== undefined || Boolean(f['release-mapping-pages']);
  // Repacked weights live in anonymous memory: out of reach of page release, and with no swap
  // they can never leave RAM. Policies that release pages, and budgets the weights do not fit
  // in, therefore load without repacking unless told otherwise.
  const repack = (f['repack'] as boolean | undefined) ?? !(releasing || (plan !== null && plan.verdict !== 'fits'));
  const target = f['residency-target'] as number | undefined;
  const reserve = (f['residency-reserve'] as number | undefined) ?? 0;
  let residencyTargetBytes: number | undefined;
  if (target !== undefined) residencyTargetBytes = Math.max(0, target - reserve);
  else if (plan && plan.quantities.pinnedBytes.value !== null) residencyTargetBytes = plan.quantities.pinnedBytes.value;
  return {
    modelPath,
    mmap: f['mmap'] as boolean,
    repack,
    // Prefaulting a model that does not fit reads it once only for the cap to evict it again.
    prefault: (f['prefetch'] as boolean | undefined) ?? !(plan !== null && plan.verdict !== 'fits'),
    gpuLayers: f['gpu-layers'] as number,
    ctx: f['ctx'] as number,
    threads: f['threads'] as number | undefined,
    batch: f['batch'] as number,
    policy,
    ramBytes: f['ram'] as number | undefined,
    prefetchDepth: f['prefetch-depth'] as number,
    tiers: plan ? plan.layers.map((l) => l.tier) : undefined,
    residencyTargetBytes,
    releaseLayers: (f['release-layer'] as string[] | undefined)?.map(Number),
    releaseMappingPages: Boolean(f['release-mapping-pages']),
    graphTrace:
      f['graph-trace'] || f['graph-trace-detail']
        ? { maxEvents: f['graph-trace-events'] as number, detail: Boolean(f['graph-trace-detail']) }
        : policy === 'reuse-aware'
          ? { maxEvents: f['graph-trace-events'] as number, detail: false }
          : undefined,
  };
}

export function samplingParams(f: ParsedArgs['flags']): GenerateParams['sampling'] {
  return {
    temperature: f['temperature'] as number,
    topK: f['top-k'] as number,
    topP: f['top-p'] as number,
    minP: f['min-p'] as number,
    seed: f['seed'] as number,
    repeatPenalty: f['repeat-penalty'] as number,
    repeatLastN: f['repeat-last-n'] as number,
  };
}

export function capFrom(f: ParsedArgs['flags']): { limitBytes: number; timeoutS: number | null } | undefined {
  if (!f['enforce-ram']) return undefined;
  const ram = f['ram'] as number | undefined;
  if (ram === undefined) throw new UsageError('--enforce-ram needs --ram SIZE');
  const t = f['enforce-timeout'] as number;
  if (!(t > 0)) throw new UsageError('--enforce-timeout must be a positive number of seconds');
  return { limitBytes: ram, timeoutS: t };
}

/**
 * The default policy: stream when the plan says the model does not fit in the budget. Below the
 * planned minimum it still streams (the plan's estimates are conservative); the cap decides.
 */
export function choosePolicy(explicit: PolicyName | null, plan: MemoryPlan | null): PolicyName {
  if (explicit) return explicit;
  return plan && plan.verdict !== 'fits' ? 'stream' : 'off';
}
