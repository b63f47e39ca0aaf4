// One side-by-side comparison under one cap: each policy in its own worker, from a cold page
// cache, policies alternating within each repetition so that drift of the machine hits all of
// them alike. Shared by `bench` and `sweep`.
import type { ParsedArgs } from './args.js';
import { flagValues } from './run-flags.js';
import { UsageError } from '../shared/errors.js';
import type { OpenedModel } from '../node/gguf-file.js';
import { loadParams, prepareRun, type PreparedRun } from './run-config.js';
import { runFailureMessage, runOnce } from '../worker/run-once.js';
import { lostNodeLines } from './rpc-nodes.js';
import { buildRunReport } from '../node/report-file.js';
import { recordRunRouting } from '../node/routing-cache.js';
import { writeJsonAtomic } from '../node/atomic-write.js';
import { medianRow, type BenchRow } from './bench-output.js';
import type { RunReport } from '../shared/report/report-types.js';
import type { PolicyName } from '../shared/worker-protocol.js';
import { comparisonRepack } from '../shared/settings/load-params.js';
import { GREEDY } from '../shared/settings/run-settings.js';
import type { RpcNodeInfo } from '../shared/remote/rpc-endpoint.js';

export interface BenchOptions {
  modelPath: string;
  opened: OpenedModel;
  flags: ParsedArgs['flags'];
  capBytes: number;
  policies: PolicyName[];
  prompt: string;
  tokens: number;
  reps: number;
  enforced: boolean;
  /** Where to write each run's report (optional). */
  reportDir?: string;
  /** With a draft model each policy runs twice a repetition: without it and with it (`POLICY+draft`). */
  draft?: OpenedModel | null;
  /** With RPC nodes each policy runs twice a repetition: on this machine alone and with the nodes (`POLICY+rpc`). */
  rpcNodes?: readonly RpcNodeInfo[];
  /**
   * Also run the model held in RAM, without the cap (`resident`: plain llama.cpp, prefaulted,
   * the capped runs' shape and kernels): the compute term measured in the same command.
   */
  resident?: boolean;
  /** Each `stream` also runs without expert read-ahead (`stream-no-read-ahead`): the A/B of read-ahead. */
  readAheadAb?: boolean;
  onRun?: (policy: string, rep: number) => void;
  /** A run that failed: how it ended and, with RPC nodes, which no longer answer (asked at once, while it is so). */
  onFailed?: (policy: string, lines: string[]) => void;
}

/** One row of the comparison: a policy, and how it runs. */
interface Variant {
  label: string;
  policy: PolicyName;
  run: PreparedRun;
  flags: ParsedArgs['flags'];
  uncapped?: boolean;
  /** A lossy row: the label of the lossless row it is teacher-forced against. */
  lossyOf?: string;
}

export interface BenchResult {
  prepared: PreparedRun;
  rows: BenchRow[];
}

export async function benchAtCap(o: BenchOptions): Promise<BenchResult> {
  if (o.tokens < 2) throw new UsageError('--tokens must be at least 2 (bytes per token need two decode samples)');
  if (o.reps < 1) throw new UsageError('--reps must be at least 1');
  // The lossy knobs run as rows of their own beside the lossless runs (lossyVariants).
  // Every run decodes o.tokens (its plan predicts a trace's cache warming over as many steps).
  const f: ParsedArgs['flags'] = { ...o.flags, ram: o.capBytes, 'enforce-ram': o.enforced, 'experts-used': undefined, 'skip-cold-experts': undefined, 'max-tokens': o.tokens };
  // The comparison runs without a draft and without the nodes: its plan is this machine's own.
  const settingsFlags = o.draft || o.rpcNodes?.length ? { ...f, draft: undefined, rpc: undefined } : f;
  // Under an enforced cap a budget below the minimum is refused here (BelowMinimumError).
  const prepared = prepareRun(o.opened, settingsFlags);
  const withDraft = o.draft ? prepareRun(o.opened, { ...f, rpc: undefined }, o.draft) : null;
  const withRpc = o.rpcNodes?.length ? prepareRun(o.opened, { ...f, draft: undefined }, null, o.rpcNodes) : null;
  const plan = prepared.plan;
  // One weight layout for every policy: the comparison is of residency schedules, not of kernels.
  const repack = comparisonRepack(o.policies, prepared.settings.repack, plan?.verdict ?? null);
  const variants: Variant[] = o.policies.flatMap((policy) => [
    { label: policy as string, policy, run: prepared, flags: settingsFlags },
    ...(withDraft ? [{ label: `${policy}+draft`, policy, run: withDraft, flags: f }] : []),
    ...(withRpc ? [{ label: `${policy}+rpc`, policy, run: withRpc, flags: { ...f, draft: undefined } }] : []),
  ]);
  if (o.readAheadAb) {
    const flags = { ...settingsFlags, 'expert-read-ahead': false };
    const without = prepareRun(o.opened, flags);
    for (let i = variants.length - 1; i >= 0; i--)
      if (variants[i]!.label === 'stream') variants.splice(i + 1, 0, { label: 'stream-no-read-ahead', policy: 'stream', run: without, flags });
  }
  variants.push(...lossyVariants(o, variants));
  if (o.resident) {
    // The capped runs' shape, so that the tokens are comparable; no budget, so nothing is planned out of core.
    const s = prepared.shape;
    const flags = { ...settingsFlags, ram: undefined, 'enforce-ram': false, ctx: s.ctx, batch: s.batch, threads: s.threads };
    variants.push({ label: 'resident', policy: 'off', run: prepareRun(o.opened, flags), flags, uncapped: true });
  }
  const runs = new Map<string, RunReport[]>(variants.map((v) => [v.label, []]));
  for (let rep = 0; rep < o.reps; rep++) {
    // This repetition's lossless tokens by label: what a lossy row is teacher-forced against.
    const lossless = new Map<string, { prompt: number[]; continuation: number[] }>();
    for (const v of runOrder(variants, rep)) {
      o.onRun?.(v.label, rep);
      const load = { ...loadParams(o.modelPath, v.flags, v.run, v.policy), repack, ...(v.uncapped ? { prefault: true } : {}) };
      const generate = { prompt: o.prompt, maxTokens: o.tokens, sampling: GREEDY };
      const result = await runOnce({
        files: o.opened.shards.map((s) => s.path),
        load,
        generate,
        cap: o.enforced && !v.uncapped ? { limitBytes: o.capBytes, timeoutS: flagValues(f)['enforce-timeout'] } : undefined,
        coldStart: true,
        ...(v.run.gpu ? { gpuEnv: v.run.gpu.env } : {}),
        ...(v.lossyOf && lossless.has(v.lossyOf) ? { teacherForce: lossless.get(v.lossyOf)! } : {}),
      });
      const g = result.generation;
      if (!v.lossyOf && g && g.tokens.length > 0) lossless.set(v.label, { prompt: g.promptTokens, continuation: g.tokens });
      const why = runFailureMessage(result);
      if (why && o.onFailed) o.onFailed(v.label, [why, ...(await lostNodeLines(load))]);
      const report = buildRunReport({ modelPath: o.modelPath, opened: o.opened, plan: v.run.plan, load, generate, result });
      // A lossy row's routing is not the model's own (--experts-used changes its shape).
      if (!v.lossyOf) await recordRunRouting(o.opened.shards[0]!.path, result.samples, result.model?.schedule?.expertCache);
      if (o.reportDir) await writeJsonAtomic(`${o.reportDir}/bench-${o.capBytes}-${v.label}${o.reps > 1 ? `-${rep + 1}` : ''}.json`, report);
      runs.get(v.label)?.push(report);
    }
  }
  return { prepared, rows: variants.map((v) => medianRow(v.label, runs.get(v.label) ?? [])) };
}

/**
 * The lossy knobs given to bench (--experts-used, --skip-cold-experts), each a row after every
 * policy's lossless row (`stream+experts-used=4`): its speed beside the lossless one's, and its
 * teacher-forced agreement with that row's tokens in the same repetition.
 */
function lossyVariants(o: BenchOptions, variants: readonly Variant[]): Variant[] {
  const v = flagValues(o.flags);
  const knobs: [string, ParsedArgs['flags']][] = [
    ...(v['experts-used'] !== undefined ? [[`experts-used=${v['experts-used']}`, { 'experts-used': v['experts-used'] }] as [string, ParsedArgs['flags']]] : []),
    ...(v['skip-cold-experts'] !== undefined ? [[`skip-cold=${v['skip-cold-experts']}`, { 'skip-cold-experts': v['skip-cold-experts'] }] as [string, ParsedArgs['flags']]] : []),
  ];
  const out: Variant[] = [];
  for (const [name, knob] of knobs)
    for (const base of variants.filter((x) => x.label === x.policy)) {
      const flags = { ...base.flags, ...knob };
      out.push({ label: `${base.label}+${name}`, policy: base.policy, run: prepareRun(o.opened, flags), flags, lossyOf: base.label });
    }
  return out;
}

/**
 * The order of one repetition's runs: as listed, except that an A/B pair (`stream`, then
 * `stream-no-read-ahead`) swaps places in every other repetition, so that neither side always
 * runs right after the same run (after the resident run the machine's memory is in another state:
 * on the gpt-oss trace the side that followed it was slower in most pairs whichever it was).
 */
export function runOrder<T extends { label: string }>(variants: readonly T[], rep: number): T[] {
  const out = [...variants];
  if (rep % 2 === 0) return out;
  for (let i = 0; i + 1 < out.length; i++)
    if (out[i]!.label === 'stream' && out[i + 1]!.label === 'stream-no-read-ahead') [out[i], out[i + 1]] = [out[i + 1]!, out[i]!];
  return out;
}
