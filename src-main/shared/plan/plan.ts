// The memory planner (pure): from a model view and a budget, choose where every layer lives —
// VRAM (the last layers, as llama.cpp offloads them), pinned in RAM (the first layers: the
// fixed prefix of the cyclic scan), or streamed from storage (the rest) — and predict what
// the run costs (docs/streaming.md, "The budget").
import { formatBytes } from '../size.js';
import type { LayerView, ModelView } from '../gguf/model-view.js';
import type { DraftPlan, LayerPlan, MemoryPlan, PlanInput, Quantity, Tier, Verdict } from './plan-types.js';
import { DEFAULT_KV_ELEMENT_BYTES, DEFAULT_PREFETCH_DEPTH, MAX_UBATCH, embedTokens, microBatch } from '../settings/run-settings.js';
import { embdRowReadBytes } from '../settings/token-embd.js';
import { CTX_PAD, computeBufferBytes, kvBytesForLayer, predictedTokS, runtimeOverheadBytes } from './estimates.js';
import { DEFAULT_READAHEAD_BYTES, HEADROOM_FRACTION, HEADROOM_MIN_BYTES, budgetStream } from './stream-select.js';
import { withExpertCache } from './plan-moe.js';
import { headBytes, placeVram } from './place-vram.js';
import { placeRemote, withRemoteWait, type RemotePlan } from './place-remote.js';

export type { MemoryPlan, PlanInput, LayerPlan, Quantity, Tier, Verdict } from './plan-types.js';

export const DEFAULT_RAM_BW = 20e9;
export const DEFAULT_VRAM_BW = 300e9;

/** The model or the input cannot be planned (bad metadata, nonsense budget): exit 2 in the CLI. */
export class PlanInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlanInputError';
  }
}

const fb = (n: number): string => formatBytes(n);
const q = (value: number | null, formula: string): Quantity => ({ value, formula });

/**
 * Weight bytes each decoded token reads: every layer, plus the persistent tensors except a
 * token_embd beside a separate output head (one row of it per token).
 */
export function weightsReadPerToken(view: ModelView): number {
  return sum(view.layers.map((l) => l.bytes)) + view.persistent.bytes - embdNotResidentBytes(view);
}

/** token_embd's bytes when a separate output head sits beside it (read a row per token), else 0. */
function embdNotResidentBytes(view: ModelView): number {
  return embdRowReadBytes(view.persistent.tensors, (t) => t.nbytes);
}

/** The run's shape with the planner's defaults filled in, and the model's sizes it needs. */
interface Shape {
  kvTypeBytes: number;
  prefetchDepth: number;
  ctx: number;
  ubatch: number;
  ramBw: number;
  vramBw: number;
  parallel: number;
  headDim: number;
  valueDim: number;
  nHead: number;
  nEmbd: number;
  nVocab: number;
  nFf: number;
  blockCount: number;
}

/** The input checked and defaulted, the model's dimensions required; PlanInputError says what is missing. */
function planShape(view: ModelView, input: PlanInput): Shape {
  const kvTypeBytes = input.kvTypeBytes ?? DEFAULT_KV_ELEMENT_BYTES;
  const prefetchDepth = input.prefetchDepth ?? DEFAULT_PREFETCH_DEPTH;
  const ctx = input.ctx;
  const ubatch = input.ubatch ?? microBatch(MAX_UBATCH, ctx);
  validateInput(input, ctx, prefetchDepth, kvTypeBytes, ubatch);
  if (view.vocabOnly) throw new PlanInputError('this file holds no weights (vocab-only GGUF): nothing to plan');
  const need = (v: number | null, what: string): number => {
    if (v === null || !(v > 0)) throw new PlanInputError(`cannot plan: the model's metadata lacks ${what}`);
    return v;
  };
  const headDim = need(view.headDim, 'the head size (embedding_length / head_count or attention.key_length)');
  const nHead = need(view.headCount, 'attention.head_count');
  const nEmbd = need(view.embeddingLength, 'embedding_length');
  const nVocab = need(view.vocabSize, 'the vocabulary size');
  const blockCount = view.layers.length;
  if (blockCount === 0) throw new PlanInputError('cannot plan: the model has no layer (blk.N.*) tensors');
  const parallel = input.parallel ?? 1;
  if (!Number.isInteger(parallel) || parallel < 1 || parallel > 64) throw new PlanInputError(`parallel must be an integer 1..64 (got ${parallel})`);
  return {
    kvTypeBytes,
    prefetchDepth,
    ctx,
    ubatch,
    ramBw: input.memoryBandwidthBytesPerS ?? DEFAULT_RAM_BW,
    vramBw: input.vramBandwidthBytesPerS ?? DEFAULT_VRAM_BW,
    parallel,
    headDim,
    valueDim: view.valueDim ?? headDim,
    nHead,
    nEmbd,
    nVocab,
    nFf: view.feedForwardLength ?? 4 * nEmbd,
    blockCount,
  };
}

/** Memory that does not depend on where layers live: KV per layer, resident persistent weights, buffers. */
function fixedCosts(view: ModelView, input: PlanInput, sh: Shape) {
  // Every sequence has its own KV cache of ctx tokens.
  const kvFor = (i: number) => kvBytesForLayer(view.headCountKvByLayer?.[i] ?? (view.headCountKv as number), sh.headDim, sh.valueDim, sh.ctx * sh.parallel, sh.kvTypeBytes);
  const kvPerLayer = view.layers.map((l) => kvFor(l.index));
  const persistent = view.persistent.bytes;
  // With a separate output head, decode reads one row of token_embd per token (get_rows): it
  // need not stay resident, and the kernel evicts its untouched pages first. Tied, it is the
  // output head too and is read whole every token.
  const embdNotResident = embdNotResidentBytes(view);
  // Layer tensors a draft reads through this model's copy are held resident like the
  // persistent ones (a draft reads them every drafted token).
  const draftShared = new Set(input.draft?.sharedTensors ?? []);
  const sharedLayerBytes = sum(view.layers.flatMap((l) => l.tensors.filter((t) => draftShared.has(t.name)).map((t) => t.nbytes)));
  const compute = computeBufferBytes(sh.nVocab, sh.nHead, sh.nEmbd, sh.nFf, sh.ctx, sh.ubatch);
  const overhead = runtimeOverheadBytes(view.tensorBytes, sh.nVocab);
  const embeddings = embeddingsContextBytes(view, input, sh);
  return {
    kvPerLayer,
    kvTotal: sum(kvPerLayer.map((k) => k.value as number)),
    persistent,
    embdNotResident,
    draftShared,
    sharedLayerBytes,
    persistentResident: persistent - embdNotResident + sharedLayerBytes,
    layerTotal: sum(view.layers.map((l) => l.bytes)),
    compute,
    overhead,
    embeddings,
    computeB: compute.value as number,
    overheadB: overhead.value as number,
  };
}
type Fixed = ReturnType<typeof fixedCosts>;

/**
 * A server's embeddings context (made on the first /v1/embeddings request, beside the one that
 * generates): the KV cache of one text of embedTokens and the compute buffer of a micro-batch
 * that long, and its output row. Measured on a 16-layer, 32k-vocabulary model: 8 MiB of KV and
 * 69 MiB of compute at 512 tokens, charged beyond the plan until it counted them; llama.cpp pads
 * a context to a multiple of CTX_PAD tokens (a 16-token one holds the KV of 256: 7.5 MiB, not 0.5,
 * on a 30-layer model).
 */
function embeddingsContextBytes(view: ModelView, input: PlanInput, sh: Shape): Quantity {
  if (!input.serving) return { value: 0, formula: 'not serving an API: no embeddings context' };
  const n = embedTokens(sh.ubatch, view.contextLength);
  const kvTokens = Math.ceil(n / CTX_PAD) * CTX_PAD;
  const kv = sum(view.layers.map((l) => kvBytesForLayer(view.headCountKvByLayer?.[l.index] ?? (view.headCountKv as number), sh.headDim, sh.valueDim, kvTokens, sh.kvTypeBytes).value as number));
  const compute = computeBufferBytes(sh.nVocab, sh.nHead, sh.nEmbd, sh.nFf, n, n).value as number;
  const output = 4 * sh.nVocab;
  const value = kv + compute + output;
  return { value, formula: `serving: a context of ${n} tokens for /v1/embeddings, KV of ${kvTokens} (llama.cpp pads to ${CTX_PAD}) ${fb(kv)} + compute buffer of a ${n}-token micro-batch ${fb(compute)} + output row 4 B × n_vocab ${fb(output)} = ${fb(value)}` };
}

/**
 * VRAM (place-vram.ts): the head and the last layers as llama.cpp offloads them, an MoE's dense
 * part first. The rest of the plan sees the model without what the device holds (`ramView`).
 */
function vramTier(view: ModelView, input: PlanInput, f: Fixed) {
  const tiers: Tier[] = view.layers.map(() => 'pinned');
  if (input.vramBytes === undefined || !(input.vramBytes > 0)) return { tiers, placed: null, vramUsed: 0, vramFormula: 'no VRAM given' };
  // A mixture of experts larger than its RAM budget is served by the expert cache, which then has
  // a VRAM tier (the runtime sets one up only under a budget: residency-runtime.ts).
  const expertCache = view.moe !== null && input.ramBytes !== undefined && view.tensorBytes > input.ramBytes;
  const placed = placeVram(view, { vramBytes: input.vramBytes, kvPerLayer: f.kvPerLayer.map((k) => k.value as number), computeBytes: f.computeB, device: input.gpuDevice ?? null, expertCache });
  view.layers.forEach((l, i) => placed.wholeLayers.has(l.index) && (tiers[i] = 'vram'));
  const used = placed.gpu.quantities.usedBytes;
  return { tiers, placed, vramUsed: used.value as number, vramFormula: used.formula };
}

/** Other machines (place-remote.ts): the last layers not on a GPU, on the RPC nodes. */
function remoteTier(view: ModelView, input: PlanInput, f: Fixed, ramBw: number, tiers: Tier[]): RemotePlan | null {
  if (!input.remote || input.remote.length === 0) return null;
  const free = view.layers
    .map((l, i) => ({ index: l.index, bytes: l.bytes, kvBytes: f.kvPerLayer[i]?.value as number, largestTensorBytes: Math.max(0, ...l.tensors.map((t) => t.nbytes)), i }))
    .filter((l) => tiers[l.i] !== 'vram');
  const remote = placeRemote({ nodes: input.remote, layers: free, computeBytes: f.computeB, headBytes: headBytes(view).bytes, nEmbd: view.embeddingLength ?? 0, nVocab: view.vocabSize ?? 0, ramBandwidthBytesPerS: ramBw });
  const on = new Set(remote.nodes.flatMap((n) => n.layers));
  view.layers.forEach((l, i) => on.has(l.index) && (tiers[i] = 'remote'));
  return remote;
}

/** Each tier's layers and bytes; the VRAM tier's are what the device holds of the layers (an MoE's dense part too). */
function tierSummaries(layers: LayerPlan[], placed: ReturnType<typeof vramTier>['placed'], remote: boolean) {
  const pick = (t: Tier) => {
    const ls = layers.filter((l) => l.tier === t);
    return { layers: ls.map((l) => l.index), bytes: sum(ls.map((l) => l.bytes)) };
  };
  const deviceLayers = placed ? { layers: placed.gpu.layers, bytes: placed.gpu.quantities.layerWeightBytes.value as number } : pick('vram');
  const tierSets = { vram: deviceLayers, pinned: pick('pinned'), streamed: pick('streamed'), ...(remote ? { remote: pick('remote') } : {}) };
  // Weights a token reads from the device: its layers' and the output head.
  const deviceWeights = placed ? deviceLayers.bytes + (placed.gpu.quantities.headBytes.value as number) : tierSets.vram.bytes;
  return { tierSets, deviceWeights };
}

export function planMemory(view: ModelView, input: PlanInput): MemoryPlan {
  const sh = planShape(view, input);
  const { tiers, placed, vramUsed, vramFormula } = vramTier(view, input, fixedCosts(view, input, sh));
  const remote = remoteTier(view, input, fixedCosts(view, input, sh), sh.ramBw, tiers);
  // RAM's share: the model without what the device holds.
  const full = view;
  if (placed) view = placed.ramView;
  const f = fixedCosts(view, input, sh);
  const ramIdx = view.layers.map((_, i) => i).filter((i) => tiers[i] !== 'vram' && tiers[i] !== 'remote');
  const kvRam = sum(view.layers.map((l, i) => (placed?.kvOnDevice.has(l.index) || tiers[i] === 'remote' ? 0 : (f.kvPerLayer[i]?.value as number))));
  const draftFixed = input.draft ? input.draft.ownWeightBytes + (input.draft.overhead.value ?? 0) : 0;
  const fixed = f.persistentResident + kvRam + f.computeB + f.overheadB + (f.embeddings.value as number) + draftFixed;
  // The shared tensors are counted with the persistent ones, not with their layers.
  const withoutShared = (l: LayerView): LayerView =>
    f.draftShared.size === 0 ? l : { ...l, tensors: l.tensors.filter((t) => !f.draftShared.has(t.name)), bytes: l.bytes - sum(l.tensors.filter((t) => f.draftShared.has(t.name)).map((t) => t.nbytes)) };
  const ramLayers = ramIdx.map((i) => withoutShared(view.layers[i] as LayerView));
  const allRamLayers = sum(ramLayers.map((l) => l.bytes));

  // --- resident weights and streamed rest. Decode reads each weight once per pass: the budget
  // after fixed costs, the streaming window, the kernel's read-ahead and the headroom holds
  // weights that are never read again; the rest streams through the window.
  const budget = budgetStream({
    capBytes: input.ramBytes,
    nonWeightBytes: fixed - f.persistentResident,
    persistentResidentBytes: f.persistentResident,
    layers: ramLayers,
    prefetchDepth: sh.prefetchDepth,
    readaheadBytes: input.readaheadBytes ?? DEFAULT_READAHEAD_BYTES,
  });
  const { verdict, selection } = budget;
  const streamingReserve = verdict === 'fits' ? 0 : budget.windowBytes + budget.readaheadBytes;
  const streamedByLayer = new Map<number, number>();
  ramIdx.forEach((i, k) => {
    const sb = selection.perLayer[k] ?? 0;
    streamedByLayer.set(i, sb);
    if (sb > 0) tiers[i] = 'streamed';
  });

  const layers: LayerPlan[] = view.layers.map((l, i) => ({
    index: l.index,
    bytes: (full.layers[i] as LayerView).bytes,
    kvBytes: f.kvPerLayer[i]?.value as number,
    tier: tiers[i] as Tier,
    streamedBytes: streamedByLayer.get(i) ?? 0,
  }));
  const { tierSets, deviceWeights } = tierSummaries(layers, placed, remote !== null);
  const streamedBytes = selection.bytes;
  const residentLayerBytes = allRamLayers - streamedBytes;

  // --- predictions
  const localSpeed = predictedTokS(streamedBytes, input.diskBandwidthBytesPerS, f.persistentResident + allRamLayers, sh.ramBw, deviceWeights, sh.vramBw, input.measuredCompute);
  const speed = remote ? withRemoteWait(localSpeed, remote) : localSpeed;
  const used = verdict === 'cannot-run' ? null : fixed + residentLayerBytes + streamingReserve + budget.headroomBytes;
  const draft = input.draft ? draftSection(full, input, input.draft, { verdict, streamedBytes, residentLayerBytes: residentLayerBytes + f.sharedLayerBytes, sharedLayerBytes: f.sharedLayerBytes, minimum: budget.minimumCapBytes }) : null;
  const reason = reasonFor(verdict, { input, pinned: tierSets.pinned.layers.length, streamed: tierSets.streamed.layers.length, vram: tierSets.vram.layers.length, streamedBytes, minimum: budget.minimumCapBytes, full: budget.fullResidencyCapBytes, tok: speed.value });
  const notes: string[] = [];
  if (view.contextLength !== null && sh.ctx > view.contextLength) notes.push(`ctx ${sh.ctx} is above the model's trained context length ${view.contextLength}`);
  if (f.embdNotResident) notes.push(`token_embd (${fb(f.embdNotResident)}) is not held resident: one row of it is read per token, so it is left out of fixed RAM and of the per-token traffic`);
  if (placed?.gpu.outputOnDevice) notes.push('the output head is on the device; token_embd stays in RAM (llama.cpp keeps the input layer on the CPU)');

  const plan: MemoryPlan = {
    schemaVersion: 1,
    model: { architecture: full.architecture, name: full.name, blockCount: sh.blockCount, fileBytes: full.fileBytes, tensorBytes: full.tensorBytes },
    input: {
      ramBytes: input.ramBytes,
      vramBytes: input.vramBytes ?? null,
      ctx: sh.ctx,
      ubatch: sh.ubatch,
      kvTypeBytes: sh.kvTypeBytes,
      prefetchDepth: sh.prefetchDepth,
      diskBandwidthBytesPerS: input.diskBandwidthBytesPerS,
      diskBandwidthSource: input.diskBandwidthSource ?? 'given',
      memoryBandwidthBytesPerS: sh.ramBw,
      vramBandwidthBytesPerS: sh.vramBw,
      threads: input.threads ?? null,
      parallel: sh.parallel,
      serving: input.serving === true,
    },
    layers,
    tiers: tierSets,
    ...(remote ? { remote } : {}),
    quantities: planQuantities(view, input, sh, f, { ramIdx, kvRam, draftFixed, fixed, allRamLayers, budget, streamingReserve, streamedBytes, residentLayerBytes, used, speed, vramUsed, vramFormula, streamedLayers: tierSets.streamed.layers.length }),
    stream:
      verdict === 'out-of-core'
        ? { tensors: selection.tensors, unitBytes: budget.unitBytes, windowBytes: budget.windowBytes, readaheadBytes: budget.readaheadBytes, headroomBytes: budget.headroomBytes }
        : null,
    draft,
    ...(placed ? { gpu: placed.gpu } : {}),
    verdict,
    reason,
    notes,
  };
  // A mixture of experts: the same budget, with an expert cache beside the locked dense part.
  // (The RAM view's experts: those the device does not hold.)
  return view.moe && view.moe.layers.length > 0 ? withExpertCache(plan, view, { fixedBytes: fixed, persistentResidentBytes: f.persistentResident, headroomBytes: budget.headroomBytes, readaheadBytes: budget.readaheadBytes, ...(input.routing ? { routing: input.routing } : {}), ...(input.routeTrace ? { trace: input.routeTrace } : {}), ...(input.measuredCompute ? { measuredCompute: input.measuredCompute } : {}), ...(input.expertRead ? { expertRead: input.expertRead } : {}), ...(input.readAheadShare !== undefined ? { readAheadShare: input.readAheadShare } : {}) }) : plan;
}

/** Each figure of the plan with the formula that gives it. */
function planQuantities(
  view: ModelView,
  input: PlanInput,
  sh: Shape,
  f: Fixed,
  x: {
    ramIdx: number[];
    kvRam: number;
    draftFixed: number;
    fixed: number;
    allRamLayers: number;
    budget: ReturnType<typeof budgetStream>;
    streamingReserve: number;
    streamedBytes: number;
    residentLayerBytes: number;
    used: number | null;
    speed: Quantity;
    vramUsed: number;
    vramFormula: string;
    streamedLayers: number;
  },
): MemoryPlan['quantities'] {
  const { fixed, allRamLayers, budget, streamingReserve, streamedBytes, residentLayerBytes, used } = x;
  const { persistentResident } = f;
  const { headroomBytes: headroom, readaheadBytes: readahead, windowBytes: window } = budget;
  const floor = Math.max(0, persistentResident + allRamLayers - (input.ramBytes - fixed + persistentResident));
  return {
    persistentBytes: q(f.persistent, `sum of non-layer tensors' nbytes (${view.persistent.tensors.length} tensors) = ${fb(f.persistent)}`),
    layerBytesTotal: q(f.layerTotal, `sum of blk.N.* tensors' nbytes over ${sh.blockCount} layers = ${fb(f.layerTotal)}`),
    kvBytesPerLayer: f.kvPerLayer[0] as Quantity,
    kvBytesTotal: q(f.kvTotal, `sum over ${sh.blockCount} layers of KV per layer = ${fb(f.kvTotal)}`),
    kvRamBytes: q(x.kvRam, `KV of the ${x.ramIdx.length} layers not in VRAM = ${fb(x.kvRam)}`),
    computeBufferBytes: f.compute,
    runtimeOverheadBytes: f.overhead,
    embeddingsBytes: f.embeddings,
    fixedRamBytes: q(fixed, `persistent ${fb(persistentResident)}${f.embdNotResident ? ' (without token_embd)' : ''} + KV in RAM ${fb(x.kvRam)} + compute ${fb(f.computeB)} + overhead ${fb(f.overheadB)}${f.embeddings.value ? ` + embeddings ${fb(f.embeddings.value)}` : ''}${x.draftFixed ? ` + draft ${fb(x.draftFixed)}` : ''} = ${fb(fixed)}`),
    pinnedBytes: q(residentLayerBytes, `layer weights held resident (locked): all ${fb(allRamLayers)} − streamed ${fb(streamedBytes)} = ${fb(residentLayerBytes)}`),
    streamingReserveBytes: q(
      streamingReserve,
      streamingReserve > 0
        ? `window (read-ahead ${budget.prefetchDepth}${budget.prefetchDepth < sh.prefetchDepth ? ` of at most ${sh.prefetchDepth}: one layer's streamed units` : ''} + 1) × largest streamed tensor ${fb(budget.unitBytes)} + kernel read-ahead ${fb(readahead)} = ${fb(streamingReserve)}`
        : 'nothing streamed: 0',
    ),
    headroomBytes: q(headroom, `kept free so the kernel never reclaims during decode: max(${fb(HEADROOM_MIN_BYTES)}, ${HEADROOM_FRACTION * 100} % × cap) = ${fb(headroom)}`),
    ramUsedBytes: q(
      used,
      used === null
        ? 'does not fit: see minimumRamBytes'
        : `fixed ${fb(fixed)} + resident layer weights ${fb(residentLayerBytes)} + streaming reserve ${fb(streamingReserve)} + headroom ${fb(headroom)} = ${fb(used)}`,
    ),
    vramUsedBytes: q(input.vramBytes ? x.vramUsed : null, x.vramFormula),
    bytesReadPerToken: q(
      streamedBytes,
      streamedBytes > 0 ? `sum of the ${budget.selection.tensors.length} streamed tensors' bytes (in ${x.streamedLayers} layers) = ${fb(streamedBytes)}` : 'nothing streamed: 0 B',
    ),
    floorBytesPerToken: q(
      floor,
      `weights read per token ${fb(persistentResident + allRamLayers)} − (cap ${fb(input.ramBytes)} − non-weight memory ${fb(fixed - persistentResident)}) = ${fb(floor)} (no schedule reads less)`,
    ),
    predictedDecodeTokS: budget.verdict === 'cannot-run' ? q(null, 'cannot run at this cap') : x.speed,
    minimumRamBytes: q(budget.minimumCapBytes, `fixed ${fb(fixed)} + window ${fb(window)} + kernel read-ahead ${fb(readahead)}, plus headroom = ${fb(budget.minimumCapBytes)}`),
    fullResidencyRamBytes: q(budget.fullResidencyCapBytes, `fixed ${fb(fixed)} + all RAM layers ${fb(allRamLayers)}, plus headroom = ${fb(budget.fullResidencyCapBytes)}`),
  };
}

/** What the draft costs the target at this cap, and whether it can pay off. */
function draftSection(
  view: ModelView,
  input: PlanInput,
  d: NonNullable<PlanInput['draft']>,
  withDraft: { verdict: Verdict; streamedBytes: number; residentLayerBytes: number; sharedLayerBytes: number; minimum: number },
): DraftPlan {
  const alone = planMemory(view, { ...input, draft: undefined });
  const sharedBytes = sum(
    [...view.persistent.tensors, ...view.layers.flatMap((l) => l.tensors)].filter((t) => d.sharedTensors.includes(t.name)).map((t) => t.nbytes),
  );
  const aloneRead = alone.quantities.bytesReadPerToken.value ?? 0;
  const aloneResident = alone.quantities.pinnedBytes.value ?? 0;
  const cost = Math.max(0, aloneResident - withDraft.residentLayerBytes);
  const extra = withDraft.streamedBytes - aloneRead;
  // Decode under a cap is bound by the bytes each pass reads: with the draft a pass reads
  // `with`, and it must yield with/alone tokens to match a pass without it.
  const breakEven = aloneRead > 0 ? withDraft.streamedBytes / aloneRead : 1;
  const fits = withDraft.verdict !== 'cannot-run';
  const pays = fits && breakEven < d.max + 1;
  const reason = !fits
    ? `the draft does not fit beside the model in ${fb(input.ramBytes)} (its ${fb(d.ownWeightBytes)} of own weights and ${fb(d.overhead.value ?? 0)} of tokenizer, KV and buffers, with the ${fb(sharedBytes)} it shares held resident): the smallest cap with it is ${fb(withDraft.minimum)}`
    : aloneRead === 0
      ? `the model fits in RAM: a pass reads nothing from storage, so the draft pays off only if its tokens cost less than the model's own (compute-bound decode)`
      : pays
        ? `each verify pass reads ${fb(withDraft.streamedBytes)} (${fb(extra)} more than without the draft): the draft pays off once a pass yields more than ${breakEven.toFixed(2)} tokens (at most ${d.max + 1} with ${d.max} drafted)`
        : `each verify pass would read ${fb(withDraft.streamedBytes)}, ${breakEven.toFixed(2)}× a pass without the draft: more than the ${d.max + 1} tokens a pass can yield`;
  return {
    path: d.path,
    sharedBytes: q(sharedBytes, `target tensors the draft reads through the target's copy (${d.sharedTensors.length}) = ${fb(sharedBytes)}`),
    ownWeightBytes: q(d.ownWeightBytes, `the draft's weights not shared with the target = ${fb(d.ownWeightBytes)}`),
    overheadBytes: d.overhead,
    residentCostBytes: q(cost, `target layer weights resident without the draft ${fb(aloneResident)} − with it ${fb(withDraft.residentLayerBytes)} (of which ${fb(withDraft.sharedLayerBytes)} the draft shares) = ${fb(cost)}`),
    extraReadPerPassBytes: q(extra, `read per pass with the draft ${fb(withDraft.streamedBytes)} − without ${fb(aloneRead)} = ${fb(extra)}`),
    breakEvenTokensPerPass: q(breakEven, aloneRead > 0 ? `${fb(withDraft.streamedBytes)} / ${fb(aloneRead)} = ${breakEven.toFixed(2)}` : 'nothing streamed: 1'),
    pays,
    reason,
  };
}

function reasonFor(
  v: Verdict,
  x: { input: PlanInput; pinned: number; streamed: number; vram: number; streamedBytes: number; minimum: number; full: number; tok: number | null },
): string {
  const cap = fb(x.input.ramBytes);
  const inVram = x.vram > 0 ? `, ${x.vram} in VRAM` : '';
  if (v === 'fits') return `every layer fits in RAM under ${cap}${inVram} (needs ${fb(x.full)}); nothing is read from storage per token`;
  if (v === 'out-of-core') {
    return `the model does not fit in ${cap} (full residency needs ${fb(x.full)}): ${x.streamed} of ${x.pinned + x.streamed} layers stream part of their weights${inVram}, the rest is locked in RAM; each token reads ${fb(x.streamedBytes)} from storage` +
      (x.tok !== null ? ` (≈ ${x.tok.toFixed(2)} tok/s)` : '');
  }
  return `${cap} is below the minimum working set (fixed costs, the streaming window and headroom): the smallest cap that runs is ${fb(x.minimum)}`;
}

function validateInput(input: PlanInput, ctx: number, depth: number, kvTypeBytes: number, ubatch: number): void {
  const pos = (v: number, what: string): void => {
    if (!(Number.isFinite(v) && v > 0)) throw new PlanInputError(`${what} must be a positive number (got ${v})`);
  };
  pos(input.ramBytes, 'RAM budget');
  if (input.vramBytes !== undefined && !(input.vramBytes >= 0)) throw new PlanInputError(`VRAM budget must be ≥ 0 (got ${input.vramBytes})`);
  pos(input.diskBandwidthBytesPerS, 'disk bandwidth');
  if (!Number.isInteger(ctx) || ctx < 1) throw new PlanInputError(`ctx must be a positive integer (got ${ctx})`);
  if (!Number.isInteger(depth) || depth < 0 || depth > 64) throw new PlanInputError(`prefetch depth must be an integer 0..64 (got ${depth})`);
  pos(kvTypeBytes, 'KV element size');
  pos(ubatch, 'ubatch');
}

function sum(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}
