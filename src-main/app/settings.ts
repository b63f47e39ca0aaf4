// Run settings from the UI → the worker's load parameters and the planner's flags.
import { releasesPages } from '../shared/policy-rules.js';
import { totalmem, availableParallelism } from 'node:os';
import { DEFAULT_RUN_SETTINGS, type RunSettings } from '../shared/api.js';
import { POLICIES, type LoadParams, type PolicyName } from '../shared/worker-protocol.js';

export function defaultSettings(): RunSettings {
  return { ...DEFAULT_RUN_SETTINGS, threads: Math.max(1, Math.min(8, availableParallelism())) };
}

function posInt(v: unknown, name: string, min = 1): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw new TypeError(`settings.${name} must be an integer ≥ ${min}`);
  return v;
}

function checkPolicy(p: unknown): RunSettings['policy'] {
  if (p === 'auto' || POLICIES.includes(p as PolicyName)) return p as RunSettings['policy'];
  throw new TypeError(`settings.policy: unknown policy '${String(p)}'`);
}

/** Validate settings that arrived over IPC / WebSocket (untrusted shape). */
export function checkSettings(s: unknown): RunSettings {
  const d = defaultSettings();
  if (s === null || s === undefined) return d;
  if (typeof s !== 'object') throw new TypeError('settings must be an object');
  const v = { ...d, ...(s as Partial<RunSettings>) };
  const bytesOrNull = (x: unknown, name: string): number | null => (x === null ? null : posInt(x, name));
  return {
    ramBytes: bytesOrNull(v.ramBytes, 'ramBytes'),
    vramBytes: bytesOrNull(v.vramBytes, 'vramBytes'),
    enforceRam: Boolean(v.enforceRam),
    ctx: posInt(v.ctx, 'ctx', 16),
    policy: checkPolicy(v.policy),
    prefetchDepth: posInt(v.prefetchDepth, 'prefetchDepth', 0),
    threads: posInt(v.threads, 'threads'),
    mmap: Boolean(v.mmap),
    repack: Boolean(v.repack),
    prefault: Boolean(v.prefault),
    graphTrace: v.graphTrace !== false,
  };
}

export function toLoadParams(modelPath: string, s: RunSettings): LoadParams {
  const p: LoadParams = {
    modelPath,
    mmap: s.mmap,
    repack: s.repack,
    prefault: s.prefault,
    ctx: s.ctx,
    threads: s.threads,
    prefetchDepth: s.prefetchDepth,
  };
  if (s.policy !== 'auto') p.policy = s.policy;
  if (releasesPages(p.policy)) p.repack = false;
  // The trace view's data: recorded once at load (a few hundred node events per layer).
  if (s.graphTrace !== false) p.graphTrace = { maxEvents: 100_000, detail: false };
  if (s.ramBytes !== null) p.ramBytes = s.ramBytes;
  return p;
}

export function planArgs(modelPath: string, s: RunSettings): string[] {
  const args = ['plan', modelPath, '--json', '--ram', String(s.ramBytes ?? totalmem()), '--ctx', String(s.ctx)];
  if (s.vramBytes !== null) args.push('--vram', String(s.vramBytes));
  return args;
}

type PlanTier = 'vram' | 'pinned' | 'streamed';

/** The per-layer tiers of a `ramforge plan --json` result, or null when it has none. */
export function planTiers(plan: unknown): PlanTier[] | null {
  const layers = (plan as { layers?: unknown })?.layers;
  if (!Array.isArray(layers) || layers.length === 0) return null;
  const tiers = layers.map((l) => (l as { tier?: unknown })?.tier);
  return tiers.every((t) => t === 'vram' || t === 'pinned' || t === 'streamed') ? (tiers as PlanTier[]) : null;
}

/**
 * With a RAM budget the worker executes the plan: its tiers go into the load parameters, and
 * 'auto' becomes the streaming schedule when some layer does not fit (DESIGN.md: the default
 * whenever the model does not fit).
 */
export function applyPlan(p: LoadParams, s: RunSettings, plan: unknown): LoadParams {
  const tiers = planTiers(plan);
  if (!tiers) return p;
  const out: LoadParams = { ...p, tiers };
  if (s.policy === 'auto' && tiers.includes('streamed')) out.policy = 'stream';
  return withFileBackedWeights(out);
}

/**
 * Repacked weights live in anonymous memory, out of reach of a policy that releases or streams
 * pages (the dashboard would show nothing resident and nothing read): such loads do not repack.
 */
export function withFileBackedWeights(p: LoadParams): LoadParams {
  return releasesPages(p.policy) ? { ...p, repack: false } : p;
}
