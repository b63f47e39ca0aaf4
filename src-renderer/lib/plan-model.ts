// The memory plan, read defensively from `api.plan()` (typed `unknown`; the planner's own
// type is MemoryPlan in src-main/shared/plan/plan-types.ts, whose `quantities` carry a value
// and the formula that produced it). Also accepts index lists per tier.
import type { RemotePlan } from '../../src-main/shared/plan/place-remote.js';
import type { Tier } from '../../src-main/shared/residency-types.js';
import { arr, field, isObj, num, numLike, obj, str } from './fields.js';
import { planDraft, type PlanDraft } from './plan-draft.js';
import { planGpu, type PlanGpu } from './gpu-model.js';

export interface PlanLayer {
  index: number;
  bytes: number;
  tier: Tier;
  /**
   * Bytes of the layer's weights that stream; the rest is held resident. A 'streamed' layer
   * may stream only some of its tensors. null when the plan does not say (older plans).
   */
  streamedBytes: number | null;
}

/** What the stream schedule will execute (MemoryPlan.stream). */
export interface PlanStream {
  tensors: number;
  unitBytes: number | null;
  windowBytes: number | null;
  headroomBytes: number | null;
}

/** Context, micro-batch and threads the plan was made for: the user's, or chosen for the cap. */
export interface PlanShape {
  ctx: number | null;
  batch: number | null;
  threads: number | null;
}

export interface PlanInfo {
  verdict: string | null;
  verdictText: string | null;
  layers: PlanLayer[];
  bytesPerToken: number | null;
  /** No schedule reads less per token under this cap (weights − (cap − non-weight memory)). */
  floorBytesPerToken: number | null;
  headroomBytes: number | null;
  stream: PlanStream | null;
  shape: PlanShape;
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
  /** The draft model's share of the budget (speculative decoding), when the settings name one. */
  draft: PlanDraft | null;
  /** The VRAM tier (MemoryPlan.gpu), with a VRAM budget. */
  gpu: PlanGpu | null;
  /** Layers on RPC nodes (MemoryPlan.remote), with `rpc` in the settings. */
  remote: RemotePlan | null;
  formula: string[];
}

const TIERS: readonly Tier[] = ['vram', 'pinned', 'streamed'];

export function asTier(v: unknown): Tier {
  if (typeof v !== 'string') return 'pinned';
  const t = v.toLowerCase();
  if (t === 'gpu' || t === 'vram' || t === 'device') return 'vram';
  if (t === 'remote') return 'remote';
  if (t === 'stream' || t === 'streamed' || t === 'storage' || t === 'disk') return 'streamed';
  return 'pinned';
}

function layersFromLists(raw: unknown, bytesOf: (i: number) => number): PlanLayer[] {
  const out: PlanLayer[] = [];
  for (const tier of TIERS) {
    for (const i of arr(raw, `${tier}Layers`)) if (typeof i === 'number') out.push({ index: i, bytes: bytesOf(i), tier, streamedBytes: null });
  }
  return out.sort((a, b) => a.index - b.index);
}

function planStream(s: unknown): PlanStream | null {
  if (!isObj(s)) return null;
  return { tensors: arr(s, 'tensors').length, unitBytes: num(s, 'unitBytes'), windowBytes: num(s, 'windowBytes'), headroomBytes: num(s, 'headroomBytes') };
}

/** The plan's nodes as the plan made them (the shape is the one source of truth: place-remote.ts). */
function planRemote(r: unknown): RemotePlan | null {
  return isObj(r) && Array.isArray(r.nodes) ? (r as unknown as RemotePlan) : null;
}

/** One line per node for the plan view: what it holds within what it offers. */
export function remoteLines(r: RemotePlan, fb: (n: number) => string): string[] {
  return r.nodes.map((n) => {
    const what = n.layers.length === 0 ? 'nothing (too small for a layer)' : `layers ${n.layers[0]}–${n.layers[n.layers.length - 1]}${n.headBytes > 0 ? ' + the output head' : ''}`;
    return `${n.endpoint}: ${what}, ${fb(n.weightBytes + n.headBytes)} + KV ${fb(n.kvBytes)} within ${fb(n.budgetBytes)} (offers ${fb(n.freeBytes)})`;
  });
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
    streamedBytes: num(l, 'streamedBytes'),
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
    floorBytesPerToken: pick('floorBytesPerToken'),
    headroomBytes: pick('headroomBytes'),
    stream: planStream(field(raw, 'stream')),
    shape: { ctx: num(input, 'ctx'), batch: num(input, 'ubatch', 'batch'), threads: num(input, 'threads') },
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
    draft: planDraft(field(raw, 'draft')),
    gpu: planGpu(field(raw, 'gpu')),
    remote: planRemote(field(raw, 'remote')),
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

/**
 * Bytes that stream and bytes held resident in one layer. A streamed layer whose streamed
 * share is not known counts as streamed whole, as plans before tensor streaming meant.
 */
export function layerSplit(l: PlanLayer): { resident: number; streamed: number } {
  if (l.tier !== 'streamed') return { resident: l.bytes, streamed: 0 };
  const streamed = l.streamedBytes === null ? l.bytes : Math.min(l.bytes, Math.max(0, l.streamedBytes));
  return { resident: l.bytes - streamed, streamed };
}

/** Bytes per tier, for the legend of the plan bar: a partly streamed layer's resident rest is pinned. */
export function tierTotals(layers: readonly PlanLayer[]): Record<Tier, number> {
  const t: Record<Tier, number> = { vram: 0, remote: 0, pinned: 0, streamed: 0 };
  for (const l of layers) {
    const { resident, streamed } = layerSplit(l);
    t[l.tier === 'vram' || l.tier === 'remote' ? l.tier : 'pinned'] += resident;
    t.streamed += streamed;
  }
  return t;
}
