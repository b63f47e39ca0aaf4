// The app's policy comparison (the dashboard's "compare" view, as `ramforge bench`): the same
// model loaded once per policy, one greedy turn each, and each turn's report.
import { comparisonRepack } from '../shared/settings/load-params.js';
import type { Verdict } from '../shared/plan/plan-types.js';
import type { RunSettings } from '../shared/api.js';
import type { GenerateParams, PolicyName } from '../shared/worker-protocol.js';
import { GREEDY } from '../shared/settings/run-settings.js';
import { checkSettings } from './settings.js';
import { checkMaxTokens, checkPolicies, checkString } from './validate.js';

/** What the comparison asks of the service: the plan's verdict, a load, a turn, and the report the turn left. */
export interface TurnRunner {
  /** The plan's verdict for these settings (null: no plan could be made; the load then says why). */
  verdict(path: string, settings: RunSettings): Promise<Verdict | null>;
  /** The stream schedule's compute measured for these settings (on the model's shadow), for its plan. */
  measureCompute?(path: string, settings: RunSettings): Promise<unknown>;
  load(path: string, settings: RunSettings): Promise<unknown>;
  turn(requestId: string, params: GenerateParams): Promise<unknown>;
  lastTurnReport(): unknown | null;
}

/** The verdict of a plan that crossed a process boundary (`ramforge plan --json`). */
export function verdictOf(plan: unknown): Verdict | null {
  const v = (plan as { verdict?: unknown } | null)?.verdict;
  return v === 'fits' || v === 'out-of-core' || v === 'cannot-run' ? v : null;
}

export async function comparePolicies(r: TurnRunner, requestId: unknown, path: unknown, settings: unknown, policies: unknown, prompt: unknown, maxTokens: unknown): Promise<unknown[]> {
  const id = checkString(requestId, 'requestId', 200);
  const p = checkString(path, 'path');
  const s = checkSettings(settings);
  const list: PolicyName[] = checkPolicies(policies);
  const text = checkString(prompt, 'prompt', 100_000);
  const n = checkMaxTokens(maxTokens);
  const reports: unknown[] = [];
  // One weight layout for every policy (as `ramforge bench`): repacked and file-backed
  // kernels round differently, and the comparison is of residency schedules.
  const repack = comparisonRepack(list, s.repack, await r.verdict(p, s));
  // As `bench`: the stream schedule's compute measured first, so its report's plan predicts with it.
  // A measurement that fails leaves the plan its model of the compute (the formula says which).
  if (list.includes('stream') && r.measureCompute) await r.measureCompute(p, s).catch(() => undefined);
  for (const policy of list) {
    // No trace during a comparison: it adds observer callbacks to 'off', which must stay plain llama.cpp.
    await r.load(p, { ...s, policy, graphTrace: false, repack });
    await r.turn(`${id}:${policy}`, { prompt: text, sampling: GREEDY, maxTokens: n });
    const report = r.lastTurnReport();
    if (report === null) throw new Error(`the worker produced no report for policy '${policy}'`);
    reports.push(report);
  }
  return reports;
}
