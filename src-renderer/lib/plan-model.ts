// The memory plan, read defensively from `api.plan()` (typed `unknown`; the planner's own
// type is MemoryPlan in src-main/shared/plan/plan-types.ts, whose `quantities` carry a value
// and the formula that produced it). Also accepts index lists per tier.
import type { Tier } from '../../src-main/shared/residency-types.js';
import { arr, field, isObj, num, numLike, obj, str } from './fields.js';

export interface PlanLayer {
  index: number;
  bytes: number;
  tier: Tier;
}

export interface PlanInfo {
  verdict: string | null;
  verdictText: string | null;
  layers: PlanLayer[];
  bytesPerToken: number | null;
  tokS: number | null;
  kvBytes: number | null;
  computeBytes: number | null;
  overheadBytes: number | null;
  persistentBytes: number | null;
  residentBytes: number | null;
  budgetBytes: number | null;
  minCapBytes: number | null;
  prefetchDepth: number | null;
  diskBytesPerS: number | null;
  formula: string[];
}

const TIERS: readonly Tier[] = ['vram', 'pinned', 'streamed'];

export function asTier(v: unknown): Tier {
  if (typeof v !== 'string') return 'pinned';
  const t = v.toLowerCase();
  if (t === 'gpu' || t === 'vram' || t === 'device') return 'vram';
  if (t === 'stream' || t === 'streamed' || t === 'storage' || t === 'disk') return 'streamed';
  return 'pinned';
}

function layersFromLists(raw: unknown, bytesOf: (i: number) => number): PlanLayer[] {
  const out: PlanLayer[] = [];
  for (const tier of TIERS) {
    for (const i of arr(raw, `${tier}Layers`)) if (typeof i === 'number') out.push({ index: i, bytes: bytesOf(i), tier });
  }
  return out.sort((a, b) => a.index - b.index);
}

export function normalizePlan(raw: unknown): PlanInfo {
  const pred = obj(raw, 'prediction', 'predicted', 'estimate') ?? {};
  const mem = obj(raw, 'memory', 'budget') ?? {};
  const quantities = obj(raw, 'quantities') ?? {};
  const input = obj(raw, 'input') ?? {};
  const pick = (...names: string[]): number | null =>
    num(raw, ...names) ?? num(pred, ...names) ?? num(mem, ...names) ?? numLike(field(quantities, ...names)) ?? num(input, ...names);
  let layers = arr(raw, 'layers', 'tiers').map((l, i) => ({
    index: num(l, 'index', 'layer') ?? i,
    bytes: num(l, 'bytes', 'weightBytes', 'totalBytes') ?? 0,
    tier: asTier(field(l, 'tier')),
  }));
  if (layers.length === 0) {
    const sizes = arr(raw, 'layerBytes');
    layers = layersFromLists(raw, (i) => (typeof sizes[i] === 'number' ? (sizes[i] as number) : 0));
  }
  const verdictRaw = field(raw, 'verdict');
  const formula = field(raw, 'formula', 'formulas', 'explain');
  return {
    verdict: typeof verdictRaw === 'string' ? verdictRaw : str(verdictRaw, 'kind', 'status', 'code'),
    verdictText: str(verdictRaw, 'text', 'message', 'summary') ?? str(raw, 'reason', 'verdictText', 'summary'),
    layers,
    bytesPerToken: pick('bytesPerToken', 'bytesReadPerToken', 'readBytesPerToken', 'predictedBytesPerToken'),
    tokS: pick('tokS', 'predictedDecodeTokS', 'decodeTokS', 'predictedTokS', 'tokensPerSecond'),
    kvBytes: pick('kvBytes', 'kvCacheBytes', 'kvRamBytes', 'kvBytesTotal'),
    computeBytes: pick('computeBytes', 'computeBufferBytes'),
    overheadBytes: pick('overheadBytes', 'runtimeOverheadBytes'),
    persistentBytes: pick('persistentBytes'),
    residentBytes: pick('residentBytes', 'ramUsedBytes', 'ramBytesUsed', 'workingSetBytes'),
    budgetBytes: pick('ramBytes', 'budgetBytes', 'capBytes'),
    minCapBytes: pick('minCapBytes', 'minimumRamBytes', 'smallestCapBytes', 'minimumCapBytes', 'minRamBytes'),
    prefetchDepth: pick('prefetchDepth'),
    diskBytesPerS: pick('diskBytesPerS', 'diskBandwidthBytesPerS', 'diskBw', 'storageBytesPerS'),
    formula: [
      ...(Array.isArray(formula)
        ? formula.map((f) => (typeof f === 'string' ? f : JSON.stringify(f)))
        : typeof formula === 'string'
          ? formula.split('\n')
          : []),
      ...Object.entries(quantities).flatMap(([k, q]) => (isObj(q) && typeof q.formula === 'string' ? [`${k}: ${q.formula}`] : [])),
      ...arr(raw, 'notes').filter((n): n is string => typeof n === 'string'),
    ],
  };
}

/** Bytes per tier, for the legend of the plan bar. */
export function tierTotals(layers: readonly PlanLayer[]): Record<Tier, number> {
  const t: Record<Tier, number> = { vram: 0, pinned: 0, streamed: 0 };
  for (const l of layers) t[l.tier] += l.bytes;
  return t;
}
