// The compute term of the schedule `bench` compares, measured before its runs: the `stream` run
// of the same budget, shape and routing, on the model's shadow (node/shadow-model.ts: the same
// header, the tensor data a hole that reads as zeros), uncapped, so it computes what the real run
// computes and waits for no storage. Cached per file and schedule (node/compute-cache.ts): the
// plans of that schedule, the bench rows' included, then predict with it instead of a model of
// the CPU (shared/plan/measured-compute.ts).
import { rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { ParsedArgs } from './args.js';
import type { OpenedModel } from '../node/gguf-file.js';
import { loadParams, prepareRun } from './run-config.js';
import { runFailureMessage, runOnce } from '../worker/run-once.js';
import { shadowDir, writeShadow } from '../node/shadow-model.js';
import { cacheCompute, computeLookup } from '../node/compute-cache.js';
import { scheduleKey, type MeasuredCompute } from '../shared/plan/measured-compute.js';
import { GREEDY } from '../shared/settings/run-settings.js';
import { comparisonRepack } from '../shared/settings/load-params.js';
import type { PolicyName } from '../shared/worker-protocol.js';

export interface ShadowComputeOptions {
  opened: OpenedModel;
  /** The flags of the stream runs to be predicted (their budget, shape and routing). */
  flags: ParsedArgs['flags'];
  /** The policies compared: their common weight layout is the shadow's (comparisonRepack). */
  policies: readonly PolicyName[];
  prompt: string;
  tokens: number;
  log: (line: string) => void;
  /** Measure again whatever is cached (`bench`: the machine's state of this command, as its device rate). */
  fresh?: boolean;
}

/**
 * The measured compute of the stream schedule these flags make, cached (unless `fresh`) or measured now; null
 * where there is none to measure (no budget, a split model, a schedule that fits with nothing to
 * stream is measured too) or the shadow's run failed (said in the log: the plan then models it).
 */
export async function scheduleCompute(o: ShadowComputeOptions): Promise<MeasuredCompute | null> {
  if (o.opened.shards.length !== 1) return null;
  const file = o.opened.shards[0]!.path;
  const prepared = prepareRun(o.opened, o.flags);
  const ram = prepared.settings.ramBytes;
  if (ram === null) return null;
  const key = scheduleKey(prepared.settings, prepared.shape, ram);
  const cached = o.fresh ? null : computeLookup(file)(key);
  if (cached) return cached;
  o.log(`measuring the compute of the stream schedule on the model's shadow (${o.tokens} tokens; its tensor data reads as zeros, nothing from storage) …`);
  const shadow = join(shadowDir(), `${process.pid}-${basename(file)}`);
  try {
    await writeShadow(o.opened, shadow);
    const load = { ...loadParams(shadow, o.flags, prepared, 'stream'), repack: comparisonRepack(o.policies, prepared.settings.repack, prepared.plan?.verdict ?? null) };
    const result = await runOnce({ files: [shadow], load, generate: { prompt: o.prompt, maxTokens: o.tokens, sampling: GREEDY } });
    const tokS = result.generation?.timings.decodeTokS ?? 0;
    const why = runFailureMessage(result);
    if (why || !(tokS > 0)) {
      o.log(`the shadow's run gave no decode speed (${why ?? 'no tokens decoded'}): the plan models the compute`);
      return null;
    }
    return await cacheCompute(file, key, 1 / tokS, result.generation?.tokens.length ?? o.tokens);
  } finally {
    await rm(shadow, { force: true });
  }
}

/** Tokens `plan --measure-compute` decodes on the shadow (bench decodes its own --tokens). */
export const PLAN_MEASURE_TOKENS = 16;

/**
 * `plan --measure-compute`: the compute of the stream schedule these plan flags make, measured on
 * the shadow (or found cached) before the plan is made, so the plan predicts with it. The stream
 * schedule of this machine alone: a draft and RPC nodes are left out of the measurement.
 */
export async function measurePlannedCompute(opened: OpenedModel, flags: ParsedArgs['flags']): Promise<void> {
  const measured = await scheduleCompute({
    opened,
    flags: { ...flags, draft: undefined, rpc: undefined, 'max-tokens': PLAN_MEASURE_TOKENS },
    policies: ['stream'],
    prompt: 'Once upon a time',
    tokens: PLAN_MEASURE_TOKENS,
    log: (l) => void process.stderr.write(`ramforge plan: ${l}\n`),
  });
  if (!measured) process.stderr.write('ramforge plan: no compute measured (a model split over several files, or no budget): the plan models it\n');
}
