// The app's side of the shared settings module: the `ramforge plan` it asks for (out of
// process: the GGUF header is parsed there, never in main) and the load made from its answer.
import { totalmem } from 'node:os';
import { DEFAULT_RUN_SETTINGS, SettingsError, validateRunSettings, type RunSettings } from '../shared/settings/run-settings.js';
import { machineFitError } from '../shared/settings/machine-fit.js';
import { toLoadParams } from '../shared/settings/load-params.js';
import type { MemoryPlan } from '../shared/plan/plan-types.js';
import type { LoadParams } from '../shared/worker-protocol.js';

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
  // The plan budgets the draft beside the model (and refuses one of another vocabulary, exit 2).
  if (s.draft !== null) args.push('--draft', s.draft, '--draft-max', String(s.draftMax), '--draft-min', String(s.draftMin));
  args.push('--', modelPath);
  return args;
}

/** A plan JSON from our own CLI, checked for the fields the load needs. */
export function asPlan(v: unknown): MemoryPlan | null {
  const p = v as MemoryPlan | null;
  if (!p || typeof p !== 'object' || !Array.isArray(p.layers) || typeof p.input?.ctx !== 'number' || typeof p.input?.ubatch !== 'number') return null;
  return p;
}

/**
 * The load for these settings and the plan `ramforge plan` made for them (its shape — ctx,
 * micro-batch, threads — is the one the CLI would pick). Without a budget the plan only
 * supplies the shape. A shape whose KV cache and compute buffer exceed the machine's RAM is a
 * SettingsError, as in the CLI.
 */
export function loadFromPlan(modelPath: string, s: RunSettings, planJson: unknown, machineBytes = totalmem()): { params: LoadParams; plan: MemoryPlan | null } {
  const p = asPlan(planJson);
  const why = p && machineFitError(p, machineBytes);
  if (why) throw new SettingsError('ctx', why);
  const shape = {
    ctx: s.ctx ?? p?.input.ctx ?? 2048,
    batch: s.batch ?? p?.input.ubatch ?? 512,
    threads: s.threads ?? p?.input.threads ?? 1,
    reasons: [],
  };
  const plan = s.ramBytes !== null ? p : null;
  return { params: toLoadParams({ modelPath, settings: s, shape, plan }), plan };
}
