// Runs the residency engine for one loaded model: builds the inventory from what llama.cpp
// loaded and where the file is mapped, hands the plan's tiers to the native engine, and
// samples residency, process counters and engine events as a time series.
import { readFileSync } from 'node:fs';
import { realpathSync } from 'node:fs';
import { loadAddon, type NativeContext, type NativeModel, type NativeResidencyCounters } from '../native/addon.js';
import { buildInventory, parseMaps, type Inventory } from '../shared/residency/inventory.js';
import type { ResidencyEvent, ResidencySample, Tier } from '../shared/residency-types.js';
import type { LoadParams, PolicyName } from '../shared/worker-protocol.js';
import { readProcStats } from '../node/proc-stats.js';
import { buildManifest, releaseOrderFromProfile, type GraphTraceManifest } from '../shared/graph-trace/manifest.js';

const PAGE_SIZE = 4096;
const TIER_CODE: Record<Tier, 0 | 1 | 2> = { pinned: 0, streamed: 1, vram: 2 };

export class ResidencyRuntime {
  readonly inventory: Inventory;
  readonly policy: PolicyName;
  readonly tiers: Tier[];
  readonly samples: ResidencySample[] = [];
  private t0 = performance.now();
  private token = 0;
  private lastSampleAt = -Infinity;
  private listeners: ((s: ResidencySample) => void)[] = [];
  counters: NativeResidencyCounters | null = null;
  graphTrace: GraphTraceManifest | null = null;
  /** What happened to the graph-trace profile (reuse-aware): used, or refused and why. */
  profileNote: string | null = null;
  private releaseOrder: number[] | undefined;

  constructor(
    model: NativeModel,
    private ctx: NativeContext,
    private files: string[],
    nLayers: number,
    private params: LoadParams,
  ) {
    this.policy = params.policy ?? 'off';
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
    this.ctx.residency('trace-arm', maxEvents);
    this.ctx.evalLogits([token]);
    const raw = this.ctx.residency('trace-take');
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
      const accepted = this.ctx.residency('drop', layer);
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

  configure(): void {
    if (!this.engineActive) return;
    this.ctx.residency('configure', {
      policy: this.policy,
      files: this.files,
      prefetchDepth: this.params.prefetchDepth ?? 4,
      targetBytes: this.params.residencyTargetBytes ?? 0,
      releaseOrder: this.releaseOrder ?? this.params.releaseOrder,
      layers: this.inventory.layers.map((l) => ({ index: l.index, tier: TIER_CODE[this.tiers[l.index] ?? 'pinned'], ranges: l.ranges })),
    });
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

  // Sampling costs one mincore pass over the model; at most ~20 samples a second.
  sample(phase: ResidencySample['phase'], decodeTokS: number | null, force: boolean): ResidencySample | null {
    const now = performance.now();
    if (!force && now - this.lastSampleAt < 50) return null;
    this.lastSampleAt = now;
    let layerResident: (number | null)[];
    let events: ResidencyEvent[] = [];
    if (this.engineActive) {
      const s = this.ctx.residency('sample');
      this.counters = s.counters;
      layerResident = s.layerResident;
      events = s.events.map((e) => ({ tMs: e.tMs, kind: e.kind, layer: e.layer, bytes: e.bytes, durMs: e.durMs }));
    } else {
      layerResident = this.residentNow();
    }
    const proc = readProcStats();
    const sample: ResidencySample = {
      tMs: now - this.t0,
      token: this.token,
      phase,
      layerResident,
      persistentResident: this.persistentResidentNow(),
      rssBytes: proc.rssBytes,
      cgroupBytes: null,
      cgroupLimitBytes: null,
      readBytes: proc.readBytes,
      majorFaults: proc.majorFaults,
      decodeTokS,
      events,
    };
    this.samples.push(sample);
    if (this.samples.length > 20000) this.samples.splice(0, this.samples.length - 20000);
    for (const l of this.listeners) l(sample);
    return sample;
  }
}
