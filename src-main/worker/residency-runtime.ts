// Runs the residency engine for one loaded model: builds the inventory from what llama.cpp
// loaded and where the file is mapped, hands the plan's tiers to the native engine, and
// samples residency, process counters and engine events as a time series.
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { directIoWorks } from '../node/direct-io.js';
import { loadAddon, type NativeContext, type NativeExpertConfig, type NativeModel, type NativeResidencyCounters, type NativeStreamConfig } from '../native/addon.js';
import { expertCountsOf } from '../shared/moe/expert-counts.js';
import { warmExperts } from '../shared/moe/warm-start.js';
import { cachedRouting } from '../node/routing-cache.js';
import { budgetExperts, isExpertTensor } from '../shared/residency/expert-budget.js';
import { buildInventory, parseMaps, type Inventory } from '../shared/residency/inventory.js';
import { buildStreamLayout, type StreamLayout } from '../shared/residency/stream-units.js';
import type { InventoryTensor } from '../shared/residency/inventory.js';
import type { ResidencyRowSpec } from '../shared/residency/residency-model.js';
import { rowSpecsOf } from './residency-rows.js';
import { DEFAULT_READAHEAD_BYTES, budgetStream, largestStreamable, selectStreamed, type WeightLayer } from '../shared/plan/stream-select.js';
import { MIN_SAMPLE_GAP_MS, sampleGapMs } from '../shared/residency/sample-gap.js';
import { DEFAULT_PREFETCH_DEPTH, EXPERT_EVICTION, EXPERT_IO_BUFFER_BYTES, EXPERT_IO_THREADS, STREAM_IO_REQUEST_BYTES, STREAM_IO_THREADS } from '../shared/settings/run-settings.js';
import { openOwnGroup } from '../supervisor/own-group.js';
import { TOKEN_EMBD, embdReadByRows } from '../shared/settings/token-embd.js';
import type { ExpertSample, NetworkSample, ResidencyEvent, ResidencySample, Tier } from '../shared/residency-types.js';
import type { LoadParams, PolicyName, StreamSchedule } from '../shared/worker-protocol.js';
import { readProcStats } from '../node/proc-stats.js';
import { connectionBytes } from './rpc-connections.js';
import { NON_WEIGHT_GROWTH_BYTES, PAGE_TABLE_FRACTION, draftGrowthBytes, hostComputeBytes, measureNonWeight, servingGrowthBytes } from './non-weight-memory.js';
import { buildManifest, releaseOrderFromProfile, type GraphTraceManifest } from '../shared/graph-trace/manifest.js';

const PAGE_SIZE = 4096;
// A layer on a GPU or another machine (2) has no pages here for the engine to hold or drop.
const TIER_CODE: Record<Tier, 0 | 1 | 2> = { pinned: 0, streamed: 1, vram: 2, remote: 2 };

export class ResidencyRuntime {
  readonly inventory: Inventory;
  readonly policy: PolicyName;
  tiers: Tier[];
  private t0 = performance.now();
  private readonly group = openOwnGroup();
  private token = 0;
  private lastSampleAt = -Infinity;
  /** Least time between two samples not forced (sampleGapMs). */
  private sampleGap = MIN_SAMPLE_GAP_MS;
  private listeners: ((s: ResidencySample) => void)[] = [];
  counters: NativeResidencyCounters | null = null;
  graphTrace: GraphTraceManifest | null = null;
  /** What happened to the graph-trace profile (reuse-aware): used, or refused and why. */
  profileNote: string | null = null;
  private releaseOrder: number[] | undefined;

  private readonly nVocab: number;
  private readonly metadata: Record<string, string>;

  constructor(
    model: NativeModel,
    private ctx: NativeContext,
    private files: string[],
    nLayers: number,
    private params: LoadParams,
    /** Tensors that must stay resident whatever the plan (a draft reads them through this model). */
    private readonly keepResident: ReadonlySet<string> = new Set(),
  ) {
    this.policy = params.policy ?? 'off';
    this.nVocab = model.info().nVocab;
    this.metadata = model.info().metadata;
    const real = files.map((f) => realpathSync(f));
    const maps = parseMaps(readFileSync('/proc/self/maps', 'utf8'), real);
    this.inventory = buildInventory(model.tensors(), maps, nLayers, PAGE_SIZE);
    this.tiers = Array.from({ length: nLayers }, (_, i) => params.tiers?.[i] ?? 'pinned');
  }

  /**
   * Traces one single-token decode through the eval callback and builds the manifest;
   * reuse-aware then releases in the order the profile gives, or refuses an incomplete one and
   * keeps the default order — and says which in the report.
   */
  traceAndProfile(token: number, maxEvents: number): void {
    this.ctx.traceArm(maxEvents);
    this.ctx.evalLogits([token]);
    const raw = this.ctx.traceTake();
    const weights = new Set(this.inventory.tensors.map((t) => t.name));
    this.graphTrace = buildManifest(raw, weights);
    if (this.policy !== 'reuse-aware') return;
    try {
      this.releaseOrder = releaseOrderFromProfile(this.graphTrace, this.inventory.layers.length);
      this.profileNote = `reuse-aware: using the graph-trace profile (${this.graphTrace.events} node events): release order ${this.releaseOrder.join(',')}`;
      this.configure();
    } catch (e) {
      this.profileNote = `reuse-aware: ${(e as Error).message}; releasing in the default order (latest-needed layer first)`;
    }
  }

  /** Manual releases done at load: what was asked, what the engine accepted, what mincore saw. */
  readonly manualActions: { kind: 'release'; layer: number; count: number; requested_bytes: number; accepted_bytes: number; observed_bytes: number | null }[] = [];

  /** --release-layer N / --release-mapping-pages: drop layers' exclusive pages now. */
  releaseNow(layers: number[]): void {
    for (const layer of layers) {
      if (layer < 0 || layer >= this.inventory.layers.length) throw new Error(`--release-layer ${layer}: the model has layers 0–${this.inventory.layers.length - 1}`);
      const before = this.residentNow()[layer] ?? null;
      const accepted = this.ctx.residencyDrop(layer);
      const after = this.residentNow()[layer] ?? null;
      this.manualActions.push({
        kind: 'release',
        layer,
        count: 1,
        requested_bytes: this.inventory.layers[layer]?.bytes ?? 0,
        accepted_bytes: accepted,
        observed_bytes: before !== null && after !== null ? before - after : null,
      });
    }
  }

  /** `off` installs no engine (exactly plain llama.cpp); residency is only observed. */
  get engineActive(): boolean {
    return this.policy !== 'off';
  }

  /** What the stream schedule runs (null for other policies). */
  streamLayout: StreamLayout | null = null;

  /** The split this worker executes, and what it was made from (stream policy only). */
  schedule: StreamSchedule | null = null;

  /**
   * Whether the schedule moves weights under the graph (streamed units read into its window,
   * experts served from its cache): a second context on these weights (embeddings) would compute
   * from memory the schedule reuses (measured: a SIGSEGV in the worker on a Mixtral-layout model
   * with an expert cache) and fault pages in that no budget holds.
   */
  get movesWeights(): boolean {
    return this.schedule !== null && (this.schedule.units > 0 || (this.schedule.expertCache ?? null) !== null);
  }

  /** Where each layer's and each other tensor's bytes are placed: the residency view's fixed part. */
  rowSpecs: ResidencyRowSpec[] = [];

  private makeRowSpecs(experts: NativeExpertConfig | null): void {
    this.rowSpecs = rowSpecsOf(this.inventory, this.tiers, this.streamLayout, experts, this.schedule?.expertCache?.experts ?? null);
  }

  configure(): void {
    this.makeRowSpecs(null);
    if (!this.engineActive) return;
    let stream: NativeStreamConfig | undefined;
    let expertConfig: NativeExpertConfig | null = null;
    if (this.policy === 'stream') {
      const { layout, windowBytes, schedule, experts } = this.planStream();
      expertConfig = experts;
      this.streamLayout = layout;
      this.schedule = schedule;
      stream = {
        units: layout.units.map((u) => ({ layer: u.layer, file: u.file, tensors: u.tensors })),
        windowBytes,
        pinned: layout.pinned,
        random: layout.random,
        ioThreads: STREAM_IO_THREADS,
        ioChunkBytes: STREAM_IO_REQUEST_BYTES,
        ...(experts ? { experts } : {}),
      };
      const streamedLayers = new Set(layout.units.map((u) => u.layer));
      this.tiers = this.tiers.map((t, i) => (t === 'vram' || t === 'remote' ? t : streamedLayers.has(i) ? 'streamed' : 'pinned'));
    }
    this.makeRowSpecs(expertConfig);
    this.ctx.residencyConfigure({
      policy: this.policy,
      files: this.files,
      targetBytes: this.params.residencyTargetBytes ?? 0,
      releaseOrder: this.releaseOrder ?? this.params.releaseOrder,
      layers: this.inventory.layers.map((l) => ({ index: l.index, tier: TIER_CODE[this.tiers[l.index] ?? 'pinned'], ranges: l.ranges })),
      stream,
    });
    if (this.schedule) {
      const c = this.ctx.residencySample().counters;
      this.schedule.pinnedBytes = c.pinnedBytes;
      this.schedule.pinnedLockedBytes = c.pinnedLockedBytes;
      this.schedule.lockError = c.lockError;
    }
  }

  /**
   * The streaming split, re-made from what this process measures after load: the plan's
   * estimate of non-weight memory (process, tokenizer, KV cache) can be off by tens of MiB, and
   * a schedule planned against the wrong figure runs pressed against the cap.
   */
  private planStream(): { layout: StreamLayout; windowBytes: number; schedule: StreamSchedule; experts: NativeExpertConfig | null } {
    const sp = this.params.stream ?? { tensors: [], prefetchDepth: DEFAULT_PREFETCH_DEPTH, readaheadBytes: DEFAULT_READAHEAD_BYTES, computeReserveBytes: 0 };
    const inv = this.inventory;
    const names = new Set(inv.tensors.map((t) => t.name));
    // token_embd beside a separate output head is read a row per token: never locked.
    const rowsOnly = embdReadByRows(names) ? [TOKEN_EMBD] : [];
    const ram = (t: InventoryTensor) => t.backing === 'file-mapped' && (t.layer < 0 || (this.tiers[t.layer] !== 'vram' && this.tiers[t.layer] !== 'remote'));
    // A mixture of experts under a cap: the expert tensors are the expert cache's, not the
    // stream schedule's (with no budget they stream as whole tensors, as the plan says).
    const moe = this.params.ramBytes !== undefined ? expertCountsOf(this.metadata) : null;
    const apart = new Set(moe ? inv.tensors.filter((t) => isExpertTensor(t.name) && ram(t)).map((t) => t.name) : []);
    // Each RAM layer's weights the schedule streams or locks (not those `apart` holds).
    const layerWeights = (): WeightLayer[] =>
      inv.layers
        .filter((l) => this.tiers[l.index] !== 'vram' && this.tiers[l.index] !== 'remote')
        .map((l) => {
          const tensors = inv.tensors.filter((t) => t.layer === l.index && ram(t) && !this.keepResident.has(t.name) && !apart.has(t.name)).map((t) => ({ name: t.name, nbytes: t.bytes }));
          return { bytes: tensors.reduce((s, t) => s + t.nbytes, 0), tensors };
        });
    let layers = layerWeights();
    const persistentResident = inv.tensors
      .filter((t) => ram(t) && !rowsOnly.includes(t.name) && (t.layer < 0 || this.keepResident.has(t.name)))
      .reduce((s, t) => s + t.bytes, 0);
    const cap = this.params.ramBytes ?? null;
    // A weight a draft reads through this model's copy is never streamed, whoever planned it.
    let tensors = sp.tensors.filter((n) => !this.keepResident.has(n));
    let unitBytes = largestStreamable(layers);
    let windowBytes = (sp.prefetchDepth + 1) * unitBytes;
    let headroom = 0;
    let readahead = sp.readaheadBytes;
    let measured: { bytes: number; source: string } | null = null;
    let nonWeightBudget: number | null = null;
    let expertCache: { slotsPerLayer: number; cacheBytes: number; stagingBytes: number } | null = null;
    if (cap !== null) {
      const b = this.budgetUnderCap(cap, sp, { layers, layerWeights, persistentResident, moe, apart });
      ({ measured, nonWeightBudget, readahead, expertCache, layers } = b);
      tensors = b.tensors;
      unitBytes = b.unitBytes;
      windowBytes = b.windowBytes;
      headroom = b.headroom;
    }
    const layout = buildStreamLayout(inv, tensors, unitBytes, rowsOnly, [...apart]);
    const device = expertCache ? deviceTier(this.params) : null;
    const experts: NativeExpertConfig | null = expertCache
      ? {
          tensors: inv.tensors.filter((t) => apart.has(t.name)).map((t) => ({ name: t.name, layer: t.layer, file: t.file as number, offset: t.fileOffset as number })),
          slotsPerLayer: expertCache.slotsPerLayer,
          staging: expertCache.stagingBytes > 0,
          predict: this.params.expertReadAhead !== false,
          repack: this.params.repackExperts === true,
          evict: EXPERT_EVICTION,
          ioThreads: EXPERT_IO_THREADS,
          ...(this.params.skipColdExperts !== undefined ? { skipBelow: this.params.skipColdExperts } : {}),
          warm: moe && this.params.expertWarmStart === true ? warmExperts(cachedRouting(this.files[0] as string), moe, expertCache.slotsPerLayer) : [],
          ...(device ? { device } : {}),
        }
      : null;
    const largest = layout.units.reduce((m, u) => Math.max(m, u.bytes), 0);
    windowBytes = Math.max(windowBytes, largest);
    const layerTotal = layers.reduce((s, l) => s + l.bytes, 0);
    const streamedTensorBytes = inv.tensors.filter((t) => tensors.includes(t.name)).reduce((s, t) => s + t.bytes, 0);
    return {
      layout,
      windowBytes,
      schedule: {
        capBytes: cap,
        nonWeightMeasuredBytes: measured?.bytes ?? null,
        nonWeightSource: measured?.source ?? 'not measured: no budget given',
        nonWeightBudgetBytes: nonWeightBudget,
        persistentResidentBytes: persistentResident,
        residentLayerBytes: layerTotal - streamedTensorBytes,
        streamedBytes: layout.streamedBytes,
        streamedTensors: tensors.length,
        units: layout.units.length,
        windowBytes,
        readaheadBytes: readahead,
        headroomBytes: headroom,
        pinnedBytes: 0,
        pinnedLockedBytes: 0,
        lockError: null,
        expertCache: expertCache && moe ? { ...expertCache, experts: moe.experts, used: moe.used, device } : null,
      },
      experts,
    };
  }

  /**
   * The stream schedule's budget under a cap: the non-weight memory measured after load and what
   * is charged later, the dense schedule, and for a mixture of experts the expert cache when it
   * runs (else the experts stream as whole tensors, `apart` cleared and the layers re-made).
   */
  private budgetUnderCap(
    cap: number,
    sp: NonNullable<LoadParams['stream']>,
    w: { layers: WeightLayer[]; layerWeights: () => WeightLayer[]; persistentResident: number; moe: { experts: number; used: number } | null; apart: Set<string> },
  ) {
    const { persistentResident, moe, apart } = w;
    const inv = this.inventory;
    let layers = w.layers;
    let expertCache: { slotsPerLayer: number; cacheBytes: number; stagingBytes: number } | null = null;
    const measured = measureNonWeight(this.files);
    // Charged later: the compute buffers on first use (the size llama.cpp reserved in host
    // memory), the process's own growth, the page tables of the locked weights. Nothing is
    // faulted in ahead: beside the compute buffer, the context's new memory holds ggml's
    // scheduler bookkeeping, sized for a split at every graph node (8 nodes a tensor, 60 split
    // inputs each: about 1.4 MiB a layer) and never touched, so charging it at creation took
    // the cap for nothing (a 48-layer model was OOM-killed under a cap its plan accepted).
    const fileBytes = this.files.reduce((s, f) => s + statSync(f).size, 0);
    const computeLater = hostComputeBytes(this.ctx) ?? sp.computeReserveBytes;
    const nonWeightBudget =
      measured.bytes + computeLater + (sp.embeddingsReserveBytes ?? 0) + NON_WEIGHT_GROWTH_BYTES + servingGrowthBytes(this.params.parallel ?? 1, this.nVocab) +
      draftGrowthBytes(this.params.draft?.max ?? null, this.nVocab) + Math.ceil(PAGE_TABLE_FRACTION * fileBytes);
    // Direct reads put nothing in the page cache: no kernel read-ahead to leave room for.
    const readahead = directIoWorks(this.files) ? 0 : sp.readaheadBytes;
    const input = { capBytes: cap, nonWeightBytes: nonWeightBudget, persistentResidentBytes: persistentResident, layers, prefetchDepth: sp.prefetchDepth, readaheadBytes: readahead };
    let b = budgetStream(input);
    if (moe && apart.size > 0) {
      const byLayer = new Map<number, number>();
      for (const t of inv.tensors) if (apart.has(t.name)) byLayer.set(t.layer, (byLayer.get(t.layer) ?? 0) + t.bytes);
      const eb = budgetExperts({ ...input, capBytes: cap - EXPERT_IO_THREADS * EXPERT_IO_BUFFER_BYTES, denseLayers: layers, expertLayerBytes: [...byLayer.values()], experts: moe.experts, expertsUsed: moe.used });
      // Every expert fits beside the dense part: nothing to cache, they are locked like any
      // weight. Too small a cap for the cache's least (a token's routed experts beside the
      // staging buffer): the experts stream as whole tensors, as for a dense model.
      if (eb.slotsPerLayer < moe.experts && eb.dense.verdict !== 'cannot-run') {
        b = eb.dense;
        expertCache = { slotsPerLayer: eb.slotsPerLayer, cacheBytes: eb.cacheBytes, stagingBytes: eb.stagingBytes };
      } else {
        apart.clear();
        layers = w.layerWeights();
        b = budgetStream({ ...input, layers });
      }
    }
    // Below the minimum the run was asked for anyway (--force): stream everything that can.
    const tensors = b.verdict === 'fits' ? [] : b.verdict === 'cannot-run' ? selectStreamed(layers, Infinity).tensors : b.selection.tensors;
    return { measured, nonWeightBudget, readahead, expertCache, layers, tensors, unitBytes: b.unitBytes, windowBytes: b.windowBytes, headroom: b.headroomBytes };
  
  }

  onSample(fn: (s: ResidencySample) => void): void {
    this.listeners.push(fn);
  }

  private firstDecodeAt: number | null = null;

  beginGeneration(): void {
    this.token = 0;
    this.firstDecodeAt = null;
    this.sample('prompt', null, true);
  }

  onToken(token: number, _tMs: number, force: boolean): void {
    this.token = token;
    const now = performance.now();
    if (token === 1) this.firstDecodeAt = now;
    // Decode rate since the first token (which carries the prompt's cost, so it is left out).
    const rate = this.firstDecodeAt !== null && token > 1 ? ((token - 1) * 1000) / (now - this.firstDecodeAt) : null;
    this.sample('decode', rate, force);
  }

  get onRpcNodes(): boolean {
    return (this.params.offload?.rpcServers.length ?? 0) > 0;
  }

  /** Between tokens: the counters as they stand, so a host watching a run on RPC nodes sees them move, or not. */
  heartbeat(): void {
    this.sample(this.token > 0 ? 'decode' : 'prompt', null, false);
  }

  /** The last decode sample closes the bytes-read-per-token window exactly. */
  endGeneration(): void {
    this.sample('decode', null, true);
    this.sample('idle', null, true);
  }

  residentNow(): (number | null)[] {
    return loadAddon().residentBytes(this.inventory.layers.map((l) => l.ranges));
  }

  persistentResidentNow(): number | null {
    return loadAddon().residentBytes([this.inventory.persistent.ranges])[0] ?? null;
  }

  /** mincore of each row outside the layers (token embeddings, output head, …), in the inventory's order. */
  outsideResidentNow(): (number | null)[] {
    return loadAddon().residentBytes(this.inventory.outside.map((o) => o.ranges));
  }

  // Sampling costs one mincore pass over the model, on a core the decode would use: at most ~20
  // samples a second, fewer where a pass is slow.
  sample(phase: ResidencySample['phase'], decodeTokS: number | null, force: boolean): ResidencySample | null {
    const now = performance.now();
    if (!force && now - this.lastSampleAt < this.sampleGap) return null;
    this.lastSampleAt = now;
    try {
      return this.takeSample(phase, decodeTokS, now);
    } finally {
      this.sampleGap = sampleGapMs(performance.now() - now);
    }
  }

  private takeSample(phase: ResidencySample['phase'], decodeTokS: number | null, now: number): ResidencySample {
    let layerResident: (number | null)[];
    let events: ResidencyEvent[] = [];
    let pinnedResident: number | null = null;
    let experts: ExpertSample | undefined;
    const remote = (this.params.offload?.rpcServers.length ?? 0) > 0;
    // One native sample a tick: it drains the engine's events (and carries the waits on RPC nodes).
    const native = this.engineActive || remote ? this.ctx.residencySample() : null;
    if (this.engineActive && native) {
      const s = native;
      pinnedResident = s.pinnedResident;
      this.counters = s.counters;
      if (s.experts) {
        const x = s.experts;
        experts = { routed: x.routed, hits: x.hits, prefetchHits: x.prefetchHits, loads: x.loads, prefetches: x.prefetches, readBytes: x.readBytes, ioBusyMs: x.ioBusyMs, stalls: x.stalls, stallMs: x.stallMs, predicted: x.predicted, predictedRight: x.predictedRight, staged: x.staged, prefetchDropped: x.prefetchDropped, prefetchWastedBytes: x.prefetchWastedBytes, predictions: x.predictions, predictionsIssued: x.predictionsIssued, repackedProjections: x.repackedProjections, promoted: x.promoted, skipped: x.skipped, skippedWeight: x.skippedWeight, warmed: x.warmed, deviceHits: x.deviceHits, uploads: x.uploads, uploadBytes: x.uploadBytes, resident: x.resident };
      }
      layerResident = s.layerResident;
      events = s.events.map((e) => ({ tMs: e.tMs, kind: e.kind, layer: e.layer, bytes: e.bytes, durMs: e.durMs }));
    } else {
      layerResident = this.residentNow();
    }
    const network = native ? this.networkNow(native.remoteWaitMs ?? []) : null;
    const proc = readProcStats();
    const sample: ResidencySample = {
      tMs: now - this.t0,
      token: this.token,
      phase,
      layerResident,
      persistentResident: this.persistentResidentNow(),
      outsideResident: this.outsideResidentNow(),
      rssBytes: proc.rssBytes,
      cgroupBytes: this.group?.usage() ?? null,
      cgroupLimitBytes: this.group ? (this.params.ramBytes ?? null) : null,
      limitHits: this.group?.limitHits() ?? null,
      pinnedResident,
      pinnedBytes: pinnedResident === null ? null : (this.schedule?.pinnedBytes ?? null),
      readBytes: proc.readBytes,
      majorFaults: proc.majorFaults,
      decodeTokS,
      events,
      ...(experts ? { experts } : {}),
      ...(network ? { network } : {}),
    };
    for (const l of this.listeners) l(sample);
    return sample;
  }

  /** Layers on RPC nodes: the kernel's byte counters of each node's connection, and the waits timed natively. */
  private networkNow(waits: readonly number[]): NetworkSample | null {
    const eps = this.params.offload?.rpcServers ?? [];
    if (eps.length === 0) return null;
    const socks = loadAddon().socketStats();
    return { nodes: eps.map((endpoint, i) => ({ endpoint, ...connectionBytes(endpoint, socks), waitMs: waits[i] ?? 0 })) };
  }
}

/**
 * The expert cache's VRAM tier where the plan gave it one: on the GPU the dense part is on (not
 * an RPC node). Skipping cold experts reads the router's weights on the host, so it keeps the
 * experts on the CPU.
 */
function deviceTier(params: LoadParams): { name: string; slotsPerLayer: number } | null {
  const o = params.offload;
  const name = o?.devices[0];
  if (!o?.deviceExperts || !name || name.startsWith('rpc:') || params.skipColdExperts !== undefined) return null;
  return { name, slotsPerLayer: o.deviceExperts.slotsPerLayer };
}
