// The expert cache of a mixture of experts (pure). A decoded token reads the dense part and,
// in each MoE layer, only the experts its router picks, so the unit of residency is the
// expert: the plan locks the dense part first and gives what is left of the budget to a cache
// of experts per layer. What the cache saves depends on the routing: with the synthetic skew a
// model was made with (src-main/shared/moe/routing-model.ts), else uniform routing, an LRU
// cache of C experts of a layer hits lruHitRate(popularity, C).
import { formatBytes } from '../size.js';
import type { ModelView } from '../gguf/model-view.js';
import type { MoeView } from '../gguf/moe-view.js';
import type { MemoryPlan, MoePlan, Quantity, RoutingSource } from './plan-types.js';
import { bestHitRate, expertPopularity, lruHitRate } from '../moe/routing-model.js';
import { traceHitRate, type TraceRouting } from '../moe/trace-routing.js';
import type { MeasuredCompute } from './measured-compute.js';
import { expertCacheTokS, predictedTokS } from './estimates.js';
import { capWithHeadroom } from './stream-select.js';

/** What the dense planner computed that the expert cache builds on. */
export interface DenseBudget {
  /** Non-weight memory plus the resident persistent weights (the dense plan's fixed RAM). */
  readonly fixedBytes: number;
  /** Persistent weights a token reads from RAM (token_embd left out beside a separate head). */
  readonly persistentResidentBytes: number;
  readonly headroomBytes: number;
  readonly readaheadBytes: number;
  /** The routing earlier runs measured (popularity by rank), when there is enough of it. */
  readonly routing?: { readonly popularity: readonly number[]; readonly batches: number };
  /** A routing trace the run replays: the cache is predicted by replaying it (decode steps, the prompt warming). */
  readonly trace?: TraceRouting;
  /** This schedule's compute measured on the model's shadow: the prediction adds the misses' reads to it. */
  readonly measuredCompute?: MeasuredCompute;
  /** The device's rate in reads of one expert's slice (absent: the plan's disk rate). */
  readonly expertRead?: { readonly bytesPerS: number; readonly source: string };
  /** The share of the reads earlier runs of the file needed that read-ahead started in time. */
  readonly readAheadShare?: number;
}

const fb = (n: number): string => formatBytes(n);
const q = (value: number | null, formula: string): Quantity => ({ value, formula });
const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;

const popularityMemo = new Map<string, number[]>();
/** Popularity by rank is a fixed-seed estimate, the same for every plan of one routing shape. */
function popularity(n: number, k: number, skew: number): number[] {
  const key = `${n}/${k}/${skew}`;
  let p = popularityMemo.get(key);
  if (!p) {
    p = expertPopularity(n, k, skew);
    popularityMemo.set(key, p);
  }
  return p;
}

/**
 * The plan with its expert cache: the `moe` section, and the per-token figures (bytes read,
 * floor, tok/s) and reason of an MoE. The layers, tiers and `stream` stay the dense
 * schedule's: they are what the runtime executes until it streams single experts.
 */
export function withExpertCache(plan: MemoryPlan, view: ModelView, d: DenseBudget): MemoryPlan {
  const m = view.moe as MoeView;
  const k = m.expertUsedCount;
  if (k === null || k <= 0 || m.bytesPerExpert <= 0) {
    return { ...plan, notes: [...plan.notes, 'a mixture of experts without expert_used_count: planned as a dense model (no expert cache)'] };
  }
  const n = m.expertCount;
  const L = m.layers.length;
  const bpe = m.bytesPerExpert;
  const cap = plan.input.ramBytes;
  const fits = plan.verdict === 'fits';
  const layerTotal = view.layers.reduce((s, l) => s + l.bytes, 0);
  const denseLayer = layerTotal - m.expertBytes;
  const locked = d.fixedBytes + denseLayer;
  // A micro-batch routed to more experts than the cache holds (a prompt) is computed from a
  // staging buffer of one layer's every expert, as the runtime's expert cache does
  // (shared/residency/expert-budget.ts); a cache that holds every expert needs none.
  const cacheFor = (stage: number) => Math.max(0, cap - locked - stage - d.headroomBytes);
  const withStaging = Math.min(n, Math.floor(cacheFor(n * bpe) / (L * bpe)));
  const staging = fits || withStaging >= n ? 0 : n * bpe;
  const cacheBytes = fits ? n * L * bpe : cacheFor(staging);
  const perLayer = fits ? n : Math.min(n, Math.floor(cacheBytes / (L * bpe)));

  // A VRAM tier in front of the RAM slots (place-vram.ts) holds the most used experts of every
  // layer too: a routed expert is found in one tier or the other about as often as the larger
  // of the two would hit alone (the RAM slots hold what VRAM missed most recently).
  const vramSlots = fits ? 0 : (plan.gpu?.deviceExperts?.slotsPerLayer ?? 0);
  const { source, skew, pop, hit, routingText, hitFormula } = routingFor(m, d, n, k, Math.max(perLayer, vramSlots));
  const deviceTier = vramSlots > 0 ? { slotsPerLayer: vramSlots, hitRate: routingFor(m, d, n, k, vramSlots).hit } : null;
  const routed = L * k * bpe;
  // Below the expert cache's minimum the locked part itself does not fit: what does not
  // streams every token too, as the dense schedule would stream it.
  const denseOverflow = fits ? 0 : Math.max(0, locked + staging + d.headroomBytes - cap);
  const read = Math.round(routed * (1 - hit)) + denseOverflow;
  // No cache does better than one holding the most popular experts, and at most the experts
  // the cap could hold once the dense part is locked (dense weights beyond the cap stream too).
  const room = cap - locked;
  const maxPerLayer = Math.max(0, Math.min(n, Math.floor(Math.max(0, room) / (L * bpe))));
  // A trace says what a perfect-foresight cache of that size hits on it: Belady's optimum.
  const best = d.trace ? traceHitRate(d.trace, maxPerLayer, 'optimal', n) : bestHitRate(pop, maxPerLayer);
  const floor = Math.round(routed * (1 - best)) + Math.max(0, -room);
  const ramTouched = d.persistentResidentBytes + denseLayer + Math.round(routed * hit);
  const measured = d.measuredCompute;
  // Misses are read one expert's slice a request: at the device's rate for reads of that size where it was measured.
  const rate = d.expertRead?.bytesPerS ?? plan.input.diskBandwidthBytesPerS;
  // A replayed trace is not what the routers would choose: read-ahead predicts nothing of it.
  const ahead = d.trace ? 0 : (d.readAheadShare ?? 0);
  const speed = measured && vramSlots === 0 ? expertCacheTokS(read, rate, measured, d.expertRead?.source, ahead) : predictedTokS(read, rate, ramTouched, plan.input.memoryBandwidthBytesPerS, 0, plan.input.vramBandwidthBytesPerS);
  // The least the runtime runs with: the routed experts of one token in every layer, and the staging buffer.
  const minimum = capWithHeadroom(locked + k * L * bpe + n * bpe);
  const active = m.activeBytesPerToken ?? d.persistentResidentBytes + denseLayer + routed;
  // What the runtime runs under the stream policy: the expert cache from its own minimum (which
  // may be below the whole-tensor schedule's: it never stages a whole tensor), else the experts
  // as whole tensors where that schedule runs. The least cap that runs is the smaller minimum.
  const denseMinimum = plan.quantities.minimumRamBytes.value as number;
  const cacheRuns = !fits && cap >= minimum;
  const verdict = fits ? 'fits' : cacheRuns || plan.verdict === 'out-of-core' ? 'out-of-core' : 'cannot-run';
  const canRun = verdict !== 'cannot-run';
  const wholeTensors = canRun && !fits && !cacheRuns;
  const tensorSchedule = plan.quantities.bytesReadPerToken;

  const moe = { ...moePlan(m, { n, k, L, bpe, cap, fits, layerTotal, denseLayer, locked, staging, cacheBytes, perLayer, d, source, routingText, hit, hitFormula, read, denseOverflow, floor, best, maxPerLayer, room, canRun, speed, minimum, active, tensorSchedule }), deviceTier: deviceTier ? { slotsPerLayer: deviceTier.slotsPerLayer, hitRate: q(deviceTier.hitRate, `${vramSlots} of ${n} experts per layer in VRAM slots, the same cache model as the RAM tier's = ${pct(deviceTier.hitRate)}; found in VRAM or RAM: the larger of the two tiers (${Math.max(perLayer, vramSlots)} slots) = ${pct(hit)}`) } : null };

  const least = Math.min(minimum, denseMinimum);
  const quantities = {
    ...plan.quantities,
    floorBytesPerToken: q(floor, `mixture of experts: ${moe.quantities.floorBytesPerToken.formula}`),
    minimumRamBytes: q(least, `the least of the expert cache's minimum ${fb(minimum)} and the whole-tensor schedule's ${fb(denseMinimum)} = ${fb(least)}`),
    ...(canRun && !wholeTensors
      ? {
          bytesReadPerToken: q(read, `expert cache of ${perLayer} of ${n} experts per layer (hit ${pct(hit)}, ${routingName(source, skew)}): ${moe.quantities.bytesReadPerToken.formula}`),
          predictedDecodeTokS: speed,
        }
      : {}),
  };
  const reason =
    verdict === 'cannot-run'
      ? `${fb(cap)} is below the smallest cap that runs this mixture of experts: ${fb(least)} (the expert cache's minimum ${fb(minimum)}, the whole-tensor schedule's ${fb(denseMinimum)})`
      : wholeTensors
        ? `${plan.reason}; below the expert cache's minimum (${fb(minimum)}: the routed experts of a token in every layer and a staging buffer) the experts stream as whole tensors`
        : verdict === 'out-of-core'
      ? `the model does not fit in ${fb(cap)} (full residency needs ${fb(plan.quantities.fullResidencyRamBytes.value ?? 0)}): the dense part (${fb(denseLayer)} of layer weights beside ${fb(d.persistentResidentBytes)} persistent) is locked in RAM and an expert cache holds ${perLayer} of ${n} experts in each of ${L} layers; with ${routingName(source, skew)} it hits ${pct(hit)}, so each token reads ${fb(read)} from storage` +
        (speed.value !== null ? ` (≈ ${speed.value.toFixed(2)} tok/s)` : '')
      : plan.reason;
  const notes = [...plan.notes];
  if (cacheRuns)
    notes.push(
      `under the stream policy with an enforced or advisory cap the expert tensors are served by the expert cache (only routed experts are read); the tensor schedule (plan.stream) applies to the dense part, and without a budget it would read about ${fb(tensorSchedule.value ?? 0)} a token`,
    );
  if (cacheRuns && plan.verdict === 'cannot-run') notes.push(`the expert cache runs from ${fb(minimum)}, below the whole-tensor schedule's minimum ${fb(denseMinimum)}`);
  if (wholeTensors) notes.push(`the expert cache needs ${fb(minimum)}: at this cap the experts stream as whole tensors (plan.stream), and the figures are that schedule's`);
  if (plan.input.vramBytes && !deviceTier && cacheRuns) notes.push('the expert cache is planned in RAM only: the dense part leaves no room in VRAM for a token\'s routed experts in every layer beside a staging buffer');
  return { ...plan, verdict, quantities, moe, reason, notes };
}

/** What withExpertCache computed, for the `moe` section it writes. */
interface CacheFigures {
  n: number;
  k: number;
  L: number;
  bpe: number;
  cap: number;
  fits: boolean;
  layerTotal: number;
  denseLayer: number;
  locked: number;
  staging: number;
  cacheBytes: number;
  perLayer: number;
  d: DenseBudget;
  source: RoutingSource;
  routingText: string;
  hit: number;
  hitFormula: string;
  read: number;
  denseOverflow: number;
  floor: number;
  best: number;
  maxPerLayer: number;
  room: number;
  canRun: boolean;
  speed: Quantity;
  minimum: number;
  active: number;
  tensorSchedule: Quantity;
}

/** The plan's `moe` section: the cache's size and each figure with its formula. */
function moePlan(m: MoeView, x: CacheFigures): Omit<MoePlan, 'deviceTier'> {
  const { n, k, L, bpe, cap, fits, layerTotal, denseLayer, locked, staging, cacheBytes, perLayer, d, source, routingText, hit, hitFormula, read, denseOverflow, floor, best, maxPerLayer, room, canRun, speed, minimum, active, tensorSchedule } = x;
  return {
    expertCount: n,
    expertUsedCount: k,
    expertSharedCount: m.expertSharedCount,
    layers: m.layers.map((l) => l.index),
    expertTensors: m.layers.flatMap((l) => l.expertTensors),
    cacheExpertsPerLayer: perLayer,
    routing: { source, skew: m.routerSkew, description: routingText },
    quantities: {
      bytesPerExpert: q(bpe, `a layer's expert tensors / ${n} experts (the largest layer) = ${fb(bpe)}`),
      expertBytes: q(m.expertBytes, `sum of the ${moeTensorCount(m)} expert tensors' nbytes = ${fb(m.expertBytes)}`),
      denseLayerBytes: q(denseLayer, `layer weights ${fb(layerTotal)} − expert tensors ${fb(m.expertBytes)} = ${fb(denseLayer)} (attention, norms, routers${m.expertSharedCount > 0 ? ', shared experts' : ''})`),
      lockedBytes: q(locked, `fixed RAM ${fb(d.fixedBytes)} + dense layer weights ${fb(denseLayer)} = ${fb(locked)}, locked before any expert`),
      stagingBytes: q(staging, staging === 0 ? 'every expert cached: nothing staged' : `one layer's ${n} experts × ${fb(bpe)} = ${fb(staging)} (a micro-batch routed to more experts than the cache holds is computed from it)`),
      expertCacheBytes: q(
        cacheBytes,
        fits ? `every expert resident: ${n} × ${L} layers × ${fb(bpe)} = ${fb(cacheBytes)}` : `cap ${fb(cap)} − locked ${fb(locked)} − staging ${fb(staging)} − headroom ${fb(d.headroomBytes)} = ${fb(cacheBytes)} → ${perLayer} experts per layer (⌊${fb(cacheBytes)} / (${L} layers × ${fb(bpe)})⌋, at most ${n})`,
      ),
      activeBytesPerToken: q(active, `dense part read per token + ${k} experts × ${L} layers × ${fb(bpe)} = ${fb(active)}`),
      hitRate: q(hit, hitFormula),
      bytesReadPerToken: q(
        read,
        `${L} layers × ${k} routed experts × ${fb(bpe)} × (1 − hit ${pct(hit)})${denseOverflow > 0 ? ` + dense weights beyond the cap ${fb(denseOverflow)} (locked + staging + headroom − cap)` : ''} = ${fb(read)}`,
      ),
      floorBytesPerToken: q(
        floor,
        `routed experts not held by the best cache the cap allows: ${L} × ${k} × ${fb(bpe)} × (1 − ${pct(best)}, ${source === 'trace' ? `Belady's optimum: a cache of ${maxPerLayer} of ${n} experts that knew the trace's future` : `the share of the ${maxPerLayer} most popular of ${n} experts`})${room < 0 ? ` + dense weights beyond the cap ${fb(-room)}` : ''} = ${fb(floor)} (no schedule reads less)`,
      ),
      predictedDecodeTokS: canRun ? speed : q(null, 'cannot run at this cap'),
      minimumRamBytes: q(minimum, `locked ${fb(locked)} + ${k} routed experts × ${L} layers × ${fb(bpe)} + staging ${fb(n * bpe)}, plus headroom = ${fb(minimum)}`),
      tensorScheduleBytesPerToken: q(tensorSchedule.value, `the stream schedule of whole tensors (plan.stream): ${tensorSchedule.formula}`),
    },
  };
}

/** Where the expert popularity comes from (measured, the synthetic skew, else uniform) and the hit rate of `perLayer` cached experts under it. */
function routingFor(m: MoeView, d: DenseBudget, n: number, k: number, perLayer: number) {
  if (d.trace) return traceRoutingFor(d.trace, m, n, k, perLayer);
  const measured = d.routing && d.routing.popularity.length === n ? d.routing : null;
  const source: RoutingSource = measured ? 'measured' : m.routerSkew !== null ? 'synthetic-skew' : 'uniform';
  const skew = m.routerSkew ?? 0;
  const pop = measured ? [...measured.popularity] : popularity(n, k, skew);
  const hit = lruHitRate(pop, perLayer);
  const routingText = measured
    ? `the routing earlier runs of this file measured (${measured.batches} micro-batches per layer: each layer's experts ranked by use, the shares averaged over layers)`
    : source === 'synthetic-skew'
      ? `the synthetic routing this model was made with (router skew ${skew}: the expert of popularity rank r is chosen as if its router row were scaled by (1+r)^-${skew}); it predicts no real model`
      : 'uniform routing (no routing statistics for this model: every expert equally likely), a pessimistic assumption for a trained model';
  const hitFormula = measured
    ? `LRU cache of ${perLayer} of ${n} experts, steady state (Che's approximation) over the measured popularity = ${pct(hit)}`
    : source === 'uniform'
      ? `LRU cache of ${perLayer} of ${n} experts under uniform routing: ${perLayer} / ${n} = ${pct(hit)}`
      : `LRU cache of ${perLayer} of ${n} experts, steady state (Che's approximation) over the synthetic popularity of skew ${skew} = ${pct(hit)}`;
  return { source, skew, pop, hit, routingText, hitFormula };
}

/** The routing a replayed trace gives: an LRU cache of `perLayer` replaying it, as the runtime evicts. */
function traceRoutingFor(t: TraceRouting, m: MoeView, n: number, k: number, perLayer: number) {
  const hit = traceHitRate(t, perLayer, 'lru', n);
  return {
    source: 'trace' as RoutingSource,
    skew: m.routerSkew ?? 0,
    // The popularity is not used where a trace decides the hit rates (hit and best come from replaying it).
    pop: popularity(n, k, 0),
    hit,
    routingText: `the routing trace ${t.name}, replayed (${t.decodeSteps} decode steps, its prompt warming the cache)`,
    hitFormula: `LRU cache of ${perLayer} of ${n} experts replaying the trace's decode steps = ${pct(hit)}`,
  };
}

function routingName(source: RoutingSource, skew: number): string {
  if (source === 'trace') return 'the routing trace';
  return source === 'measured' ? 'the routing runs measured' : source === 'uniform' ? 'uniform routing' : `synthetic routing (skew ${skew})`;
}

function moeTensorCount(m: MoeView): number {
  return m.layers.reduce((s, l) => s + l.expertTensors.length, 0);
}
