// The app's side of the shared settings module: the `ramforge plan` its plan view asks for and
// the `ramforge prepare-load` its load asks for (both out of process: the GGUF header is parsed
// there, never in main). The load is the CLI's own preparation, not a second one made here.
import { totalmem } from 'node:os';
import { DEFAULT_RUN_SETTINGS, validateRunSettings, type RunSettings } from '../shared/settings/run-settings.js';
import type { MemoryPlan } from '../shared/plan/plan-types.js';
import type { LoadParams } from '../shared/worker-protocol.js';
import type { PreparedLoadJson } from '../shared/settings/prepare-load.js';
import { GPU_WORKER_ENV_KEY } from '../shared/gpu/gpu-choice.js';

export { validateRunSettings as checkSettings };

export function defaultSettings(): RunSettings {
  return { ...DEFAULT_RUN_SETTINGS };
}

/**
 * `ramforge plan` for these settings; without a budget, the machine's RAM (the shape is what
 * matters then). The path comes last, after `--`, so a file named `-x.gguf` is not a flag.
 */
export function planArgs(modelPath: string, s: RunSettings): string[] {
  const args = ['plan', '--json', '--ram', String(s.ramBytes ?? totalmem()), '--prefetch-depth', String(s.prefetchDepth)];
  if (s.ctx !== null) args.push('--ctx', String(s.ctx));
  if (s.batch !== null) args.push('--batch', String(s.batch));
  if (s.threads !== null) args.push('--threads', String(s.threads));
  if (s.parallel > 1) args.push('--parallel', String(s.parallel));
  if (s.vramBytes !== null) args.push('--vram', String(s.vramBytes));
  if (s.gpu !== null) args.push('--gpu', s.gpu);
  // The nodes are asked what they hold, as `run --rpc` asks them (an unreachable one: exit 2).
  if (s.rpc.length > 0) args.push('--rpc', s.rpc.join(','));
  // The plan budgets the draft beside the model (and refuses one of another vocabulary, exit 2).
  if (s.draft !== null) args.push('--draft', s.draft, '--draft-max', String(s.draftMax), '--draft-min', String(s.draftMin));
  args.push('--', modelPath);
  return args;
}

/** `ramforge prepare-load` for these settings: the load exactly as `ramforge run` prepares it. */
export function prepareArgs(modelPath: string, s: RunSettings): string[] {
  return ['prepare-load', '--json', '--settings', JSON.stringify(s), '--', modelPath];
}

export interface PreparedAppLoad {
  params: LoadParams;
  plan: MemoryPlan | null;
  /** The model's files: what the cold start drops before a capped worker starts. */
  files: string[];
  /** The GPU the load offloads to: the worker starts with these variables (that device visible). */
  gpuEnv?: Record<string, string>;
}

/** `prepare-load`'s JSON from our own CLI, checked for the fields the load needs (the worker checks the rest at its edge). */
export function asPrepared(v: unknown, modelPath: string): PreparedAppLoad {
  const p = v as Partial<PreparedLoadJson> | null;
  const load = p?.load as LoadParams | undefined;
  const files = p?.files;
  if (!p || typeof p !== 'object' || !load || typeof load !== 'object' || load.modelPath !== modelPath || !Array.isArray(files) || !files.every((f) => typeof f === 'string')) {
    throw new Error('ramforge prepare-load answered without a load for this model');
  }
  const plan = p.plan && typeof p.plan === 'object' && Array.isArray(p.plan.layers) ? p.plan : null;
  const env = p.gpu?.env;
  const gpuEnv = env && typeof env === 'object' && Object.entries(env).every(([k, v]) => GPU_WORKER_ENV_KEY.test(k) && typeof v === 'string') ? { ...env } : undefined;
  return { params: load, plan, files, ...(gpuEnv ? { gpuEnv } : {}) };
}
