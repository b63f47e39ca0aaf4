// Turns parsed flags into what a run needs, through the shared settings module: the settings,
// the shape (ctx, micro-batch, threads) chosen to fit the cap, the plan, the load params and the
// cap. Shared by `run`, `bench`, `sweep` and `bench-serve`; the app makes the same preparation
// through `ramforge prepare-load` (commands/prepare-load.ts).
import { lossyRefusal } from '../shared/moe/lossy-knobs.js';
import type { ParsedArgs } from './args.js';
import { UsageError } from '../shared/errors.js';
import type { OpenedModel } from '../node/gguf-file.js';
import { PlanInputError } from '../shared/plan/plan.js';
import { givenDiskBandwidth } from './make-plan.js';
import { loadMachine, runDiskBandwidth } from '../node/load-machine.js';
import { SettingsError, checkPolicy, validateSampling } from '../shared/settings/run-settings.js';
import { checkRoutingSettings } from '../node/route-trace-file.js';
import { firstDecodeSteps } from '../shared/moe/trace-routing.js';
import type { RunShape } from '../shared/settings/run-shape.js';
import type { RpcNodeInfo } from '../shared/remote/rpc-endpoint.js';
import { draftPlanInput } from '../shared/draft/draft-budget.js';
import { resolvePolicy, toLoadParams } from '../shared/settings/load-params.js';
import { BelowMinimumError as SharedBelowMinimum, ShapeTooLargeError, prepareLoad, type PreparedLoad } from '../shared/settings/prepare-load.js';
import { formatBytes } from '../shared/size.js';
import { POLICIES, type GenerateParams, type LoadParams, type PolicyName } from '../shared/worker-protocol.js';
import { flagValues } from './run-flags.js';
import { flagOf, settingsFromFlags } from './flag-settings.js';

export function parsePolicy(v: unknown): PolicyName | null {
  if (v === undefined) return null;
  try {
    const p = checkPolicy(v);
    if (p === 'auto') return null;
    return p;
  } catch {
    throw new UsageError(`--policy must be auto or one of ${POLICIES.join(', ')}; got '${String(v)}'`);
  }
}

export type PreparedRun = PreparedLoad;

/**
 * Settings, the shape chosen for what the user left open, the plan for the budget and the load:
 * the shared preparation every path makes (shared/settings/prepare-load.ts). Whatever cannot run
 * on this model or this machine is a UsageError here, before a worker starts; under
 * --enforce-ram a cap below the minimum is a BelowMinimumError unless --force.
 */
export function prepareRun(opened: OpenedModel, f: ParsedArgs['flags'], draft: OpenedModel | null = null, rpcNodes: readonly RpcNodeInfo[] = [], serving = false): PreparedRun {
  const settings = settingsFromFlags(f);
  checkLayerFlags(opened, f);
  const lossy = lossyRefusal(opened.view, settings);
  if (lossy) throw new UsageError(lossy);
  const traced = checkRoutingSettings(opened.view, settings);
  // A run of N tokens sees the trace's first N decode steps: its cache is predicted as it warms over them.
  const tokens = flagValues(f)['max-tokens'];
  const routeTrace = traced && tokens !== undefined ? firstDecodeSteps(traced, tokens) : traced;
  const files = opened.shards.map((x) => x.path);
  const disk = runDiskBandwidth(files[0] as string, givenDiskBandwidth(f));
  const draftInput = draft ? (ctx: number) => draftPlanInput(opened, { path: draft.shards[0]!.path, shards: draft.shards, view: draft.view }, { ctx, max: settings.draftMax }) : undefined;
  try {
    return prepareLoad({ modelPath: files[0] as string, view: opened.view, settings, machine: { ...loadMachine(files, disk, undefined, { gpus: true, view: opened.view }), rpcNodes, routeTrace }, ...(draftInput ? { draft: draftInput } : {}), force: Boolean(f['force']), serving });
  } catch (e) {
    if (e instanceof SharedBelowMinimum) throw new BelowMinimumError(belowMinimumText(e), e.minimumBytes);
    if (e instanceof ShapeTooLargeError) throw new UsageError(`--ctx ${e.ctx}: ${e.message.slice(e.field.length + 2)}`);
    if (e instanceof SettingsError) throw new UsageError(`--${flagOf(e.field)} ${e.message.slice(e.field.length + 2)}`);
    if (e instanceof PlanInputError) throw new UsageError(e.message);
    throw e;
  }
}

/** Layers named by --release-layer and --inspect-layer exist in this model. */
function checkLayerFlags(opened: OpenedModel, f: ParsedArgs['flags']): void {
  const n = opened.view.layers.length;
  const v = flagValues(f);
  const named: [string, number][] = [
    ...(v['release-layer'] ?? []).map((l): [string, number] => ['release-layer', Number(l)]),
    ...(v['inspect-layer'] !== undefined ? [['inspect-layer', v['inspect-layer']] as [string, number]] : []),
  ];
  for (const [flag, layer] of named) if (!(layer >= 0 && layer < n)) throw new UsageError(`--${flag} ${layer}: the model has layers 0–${n - 1}`);
}

/** The refusal in the CLI's words: the flags that would run it. */
function belowMinimumText(e: SharedBelowMinimum): string {
  const hint = e.smallShape ? `; with --ctx ${e.smallShape.ctx} --batch ${e.smallShape.batch} it is ${formatBytes(e.smallShape.minimumBytes)} (${e.smallShape.minimumBytes} bytes)` : '';
  return (
    `--ram ${formatBytes(e.capBytes)} is below the smallest cap that runs this model with ctx ${e.shape.ctx} and micro-batch ${e.shape.batch}: ` +
    `${formatBytes(e.minimumBytes)} (--ram ${e.minimumBytes})${hint}. Nothing was loaded. --force runs it anyway (expect an OOM kill, exit 137).`
  );
}

/** An enforced cap below the plan's minimum working set: exit 2 before anything loads. */
export class BelowMinimumError extends UsageError {
  constructor(
    message: string,
    readonly minimumBytes: number,
  ) {
    super(message);
  }
}

/** One line per choice the shape made, for stderr. */
export function shapeNote(shape: RunShape): string {
  return `ramforge: ${shape.reasons.join('; ')}\n`;
}

/** The prepared load with what only the CLI's flags set (page releases by hand, the trace's size, a layer count for a GPU). */
export function loadParams(modelPath: string, f: ParsedArgs['flags'], run: PreparedRun, policy?: PolicyName): LoadParams {
  const p = toLoadParams({ modelPath, settings: run.settings, shape: run.shape, plan: run.plan, policy: policy ?? resolvePolicy(run.settings.policy, run.plan) });
  // The GPU's share as the preparation placed it (without --ram, from the machine's plan).
  if (run.load.offload && !p.offload) p.offload = run.load.offload;
  // Page releases by hand also need file-backed weights.
  if (f['release-layer'] !== undefined || f['release-mapping-pages']) p.repack = false;
  const v = flagValues(f);
  const target = v['residency-target'];
  const reserve = v['residency-reserve'] ?? 0;
  if (target !== undefined) p.residencyTargetBytes = Math.max(0, target - reserve);
  const gpuLayers = v['gpu-layers'];
  if (gpuLayers) p.gpuLayers = gpuLayers;
  const releases = v['release-layer']?.map(Number);
  if (releases) p.releaseLayers = releases;
  if (f['release-mapping-pages']) p.releaseMappingPages = true;
  const events = v['graph-trace-events'];
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
  const v = flagValues(f);
  const ram = v.ram;
  if (ram === undefined) throw new UsageError('--enforce-ram needs --ram SIZE');
  // Its range (LIMITS.timeoutS) was checked with the flag.
  return { limitBytes: ram, timeoutS: v['enforce-timeout'] };
}
