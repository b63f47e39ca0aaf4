// Turns parsed flags into what a run needs, through the shared settings module: the settings,
// the shape (ctx, micro-batch, threads) chosen to fit the cap, the plan, the load params and the
// cap. Shared by `run` and `bench`.
import type { ParsedArgs } from './args.js';
import { UsageError } from './errors.js';
import type { OpenedModel } from '../node/gguf-file.js';
import { planMemory, PlanInputError, type MemoryPlan } from '../shared/plan/plan.js';
import { givenDiskBandwidth, planForView } from './make-plan.js';
import { formatBytes } from '../shared/size.js';
import { physicalCores } from '../node/machine.js';
import { totalmem } from 'node:os';
import { machineFitError } from '../shared/settings/machine-fit.js';
import { cachedDiskBandwidth } from '../node/disk-bw.js';
import { directIoWorks } from '../node/direct-io.js';
import { DEFAULT_READAHEAD_BYTES } from '../shared/plan/stream-select.js';
import { DEFAULT_RUN_SETTINGS, SettingsError, checkPolicy, validateRunSettings, validateSampling, type RunSettings } from '../shared/settings/run-settings.js';
import { chooseRunShape, type RunShape } from '../shared/settings/run-shape.js';
import { draftPlanInput } from '../shared/draft/draft-budget.js';
import type { DraftPlanInput } from '../shared/plan/plan-types.js';
import { resolvePolicy, toLoadParams } from '../shared/settings/load-params.js';
import type { GenerateParams, LoadParams, PolicyName } from '../shared/worker-protocol.js';

/** Used by the plan when neither --disk-bw nor a measurement is available. */
export const ASSUMED_DISK_BW = 1e9;

export function parsePolicy(v: unknown): PolicyName | null {
  if (v === undefined) return null;
  try {
    const p = checkPolicy(v);
    if (p === 'auto') return null;
    return p;
  } catch {
    throw new UsageError(`--policy must be auto or one of off, observe, conservative, memory-bound, reuse-aware, stream; got '${String(v)}'`);
  }
}

/** The run settings the flags describe (flags not given keep the shared defaults). */
export function settingsFromFlags(f: ParsedArgs['flags']): RunSettings {
  const opt = <T>(v: unknown): T | null => (v === undefined ? null : (v as T));
  try {
    return validateRunSettings({
      ramBytes: opt<number>(f['ram']),
      vramBytes: opt<number>(f['vram']),
      enforceRam: Boolean(f['enforce-ram']),
      ctx: opt<number>(f['ctx']),
      batch: opt<number>(f['batch']),
      threads: opt<number>(f['threads']),
      parallel: (f['parallel'] as number | undefined) ?? 1,
      policy: (f['policy'] as string | undefined) ?? 'auto',
      prefetchDepth: f['prefetch-depth'] as number,
      mmap: f['mmap'] as boolean,
      repack: opt<boolean>(f['repack']),
      prefault: opt<boolean>(f['prefetch']),
      graphTrace: Boolean(f['graph-trace'] || f['graph-trace-detail']),
      draft: opt<string>(f['draft']),
      draftMax: (f['draft-max'] as number | undefined) ?? DEFAULT_RUN_SETTINGS.draftMax,
      draftMin: (f['draft-min'] as number | undefined) ?? DEFAULT_RUN_SETTINGS.draftMin,
    });
  } catch (e) {
    if (e instanceof SettingsError) throw new UsageError(`--${flagOf(e.field)} ${e.message.slice(e.field.length + 2)}`);
    throw e;
  }
}

function flagOf(field: string): string {
  return { ramBytes: 'ram', vramBytes: 'vram', prefetchDepth: 'prefetch-depth', prefault: 'prefetch', draftMax: 'draft-max', draftMin: 'draft-min' }[field] ?? field;
}

export interface PreparedRun {
  settings: RunSettings;
  shape: RunShape;
  plan: MemoryPlan | null;
}

/**
 * Settings, the shape chosen for what the user left open, and the plan for the budget. Whatever
 * cannot run on this model or this machine is a UsageError here, before a worker starts.
 */
export function prepareRun(opened: OpenedModel, f: ParsedArgs['flags'], draft: OpenedModel | null = null): PreparedRun {
  const settings = settingsFromFlags(f);
  checkLayerFlags(opened, f);
  const draftInput = draft ? (ctx: number) => draftPlanInput(opened, { path: draft.shards[0]!.path, shards: draft.shards, view: draft.view }, { ctx, max: settings.draftMax }) : undefined;
  const shape = chooseRunShape({ view: opened.view, settings, physicalCores: physicalCores(), ...(draftInput ? { draft: draftInput } : {}) });
  const plan = makePlan(opened, f, settings, shape, draftInput);
  const forMachine = plan ?? planForMachine(opened, settings, shape);
  const why = forMachine && machineFitError(forMachine, totalmem());
  if (why) throw new UsageError(`--ctx ${shape.ctx}: ${why}`);
  return { settings, shape, plan };
}

/** Without a budget there is no plan to ask: one for the machine's RAM (a pure computation). */
function planForMachine(opened: OpenedModel, settings: RunSettings, shape: RunShape): MemoryPlan | null {
  try {
    return planMemory(opened.view, { ramBytes: totalmem(), ctx: shape.ctx, ubatch: Math.min(shape.batch, shape.ctx), parallel: settings.parallel, prefetchDepth: settings.prefetchDepth, diskBandwidthBytesPerS: ASSUMED_DISK_BW });
  } catch (e) {
    if (e instanceof PlanInputError) return null;
    throw e;
  }
}

/** Layers named by --release-layer and --inspect-layer exist in this model. */
function checkLayerFlags(opened: OpenedModel, f: ParsedArgs['flags']): void {
  const n = opened.view.layers.length;
  const named: [string, number][] = [
    ...((f['release-layer'] as string[] | undefined) ?? []).map((l): [string, number] => ['release-layer', Number(l)]),
    ...(f['inspect-layer'] !== undefined ? [['inspect-layer', f['inspect-layer'] as number] as [string, number]] : []),
  ];
  for (const [flag, layer] of named) if (!(layer >= 0 && layer < n)) throw new UsageError(`--${flag} ${layer}: the model has layers 0–${n - 1}`);
}

export function makePlan(
  opened: OpenedModel,
  f: ParsedArgs['flags'],
  settings: RunSettings,
  shape: RunShape,
  draft?: (ctx: number) => DraftPlanInput,
): MemoryPlan | null {
  if (settings.ramBytes === null) return null;
  const given = givenDiskBandwidth(f);
  const disk = given ?? cachedDiskBandwidth(opened.shards[0]?.path as string) ?? { bytesPerS: ASSUMED_DISK_BW, source: 'assumed 1 GB/s (pass --disk-bw, or run `ramforge plan` once to measure)' };
  const readahead = directIoWorks(opened.shards.map((x) => x.path)) ? 0 : DEFAULT_READAHEAD_BYTES;
  // The same planning as `ramforge plan`, with the shape already chosen for these settings.
  return planForView(
    opened.view,
    {
      ram: settings.ramBytes,
      vram: settings.vramBytes ?? undefined,
      ctx: shape.ctx,
      batch: shape.batch,
      threads: shape.threads,
      parallel: settings.parallel,
      prefetchDepth: settings.prefetchDepth,
      ...(draft ? { draft } : {}),
    },
    disk,
    readahead,
  ).plan;
}

/**
 * Under an enforced cap, a budget below the plan's minimum working set would only end in an
 * OOM kill: refuse before anything loads, naming the smallest cap that runs (and with the
 * smallest context and micro-batch, when the user fixed larger ones). --force runs anyway.
 */
/** A cap below the plan's minimum working set under --enforce-ram: exit 2 before anything loads. */
export class BelowMinimumError extends UsageError {}

export function refuseBelowMinimum(opened: OpenedModel, f: ParsedArgs['flags'], run: PreparedRun): void {
  const { plan, settings, shape } = run;
  if (!plan || plan.verdict !== 'cannot-run' || !settings.enforceRam || f['force']) return;
  const min = plan.quantities.minimumRamBytes.value as number;
  let hint = '';
  // (The hint is the model's own: with a draft the smaller shape was already tried.)
  if (!plan.draft && (shape.ctx > 256 || shape.batch > 32)) {
    const small = planMemory(opened.view, { ...plan.input, vramBytes: plan.input.vramBytes ?? undefined, threads: plan.input.threads ?? undefined, ctx: 256, ubatch: 32 });
    const smallMin = small.quantities.minimumRamBytes.value as number;
    if (smallMin < min) hint = `; with --ctx 256 --batch 32 it is ${formatBytes(smallMin)} (${smallMin} bytes)`;
  }
  throw new BelowMinimumError(
    `--ram ${formatBytes(settings.ramBytes as number)} is below the smallest cap that runs this model with ctx ${shape.ctx} and micro-batch ${shape.batch}: ` +
      `${formatBytes(min)} (--ram ${min})${hint}. Nothing was loaded. --force runs it anyway (expect an OOM kill, exit 137).`,
  );
}

/** One line per choice the shape made, for stderr. */
export function shapeNote(shape: RunShape): string {
  return `ramforge: ${shape.reasons.join('; ')}\n`;
}

export function loadParams(modelPath: string, f: ParsedArgs['flags'], run: PreparedRun, policy?: PolicyName): LoadParams {
  const p = toLoadParams({ modelPath, settings: run.settings, shape: run.shape, plan: run.plan, policy: policy ?? resolvePolicy(run.settings.policy, run.plan) });
  // Page releases by hand also need file-backed weights.
  if (f['release-layer'] !== undefined || f['release-mapping-pages']) p.repack = false;
  const target = f['residency-target'] as number | undefined;
  const reserve = (f['residency-reserve'] as number | undefined) ?? 0;
  if (target !== undefined) p.residencyTargetBytes = Math.max(0, target - reserve);
  else if (run.plan && run.plan.quantities.pinnedBytes.value !== null) p.residencyTargetBytes = run.plan.quantities.pinnedBytes.value;
  p.gpuLayers = f['gpu-layers'] as number;
  const releases = (f['release-layer'] as string[] | undefined)?.map(Number);
  if (releases) p.releaseLayers = releases;
  if (f['release-mapping-pages']) p.releaseMappingPages = true;
  const events = f['graph-trace-events'] as number;
  if (f['graph-trace'] || f['graph-trace-detail']) p.graphTrace = { maxEvents: events, detail: Boolean(f['graph-trace-detail']) };
  else if (p.policy === 'reuse-aware') p.graphTrace = { maxEvents: events, detail: false };
  else delete p.graphTrace;
  return p;
}

export function samplingParams(f: ParsedArgs['flags']): GenerateParams['sampling'] {
  try {
    return validateSampling({
      temperature: f['temperature'],
      topK: f['top-k'],
      topP: f['top-p'],
      minP: f['min-p'],
      seed: f['seed'],
      repeatPenalty: f['repeat-penalty'],
      repeatLastN: f['repeat-last-n'],
    });
  } catch (e) {
    if (e instanceof SettingsError) throw new UsageError(`--${e.field.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())} ${e.message.slice(e.field.length + 2)}`);
    throw e;
  }
}

export function capFrom(f: ParsedArgs['flags']): { limitBytes: number; timeoutS: number | null } | undefined {
  if (!f['enforce-ram']) return undefined;
  const ram = f['ram'] as number | undefined;
  if (ram === undefined) throw new UsageError('--enforce-ram needs --ram SIZE');
  // Its range (LIMITS.timeoutS) was checked with the flag.
  return { limitBytes: ram, timeoutS: f['enforce-timeout'] as number };
}
