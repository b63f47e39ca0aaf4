// Pure: where every copy of a weight is. One row per layer and one per kind of tensor outside the
// layers (token embeddings, output head, output norm), each with its bytes by tier: on a GPU, on
// each RPC node, locked in RAM by the stream schedule, in the expert cache's slots, and in the
// mapping's resident pages beyond the locked ones — and what decode read of it from storage per
// token. The worker makes the rows' fixed part (`residencyRowSpecs`) from what it loaded; each
// sample says what moves. The heatmap, the layer table, the report's `residency.layers` and
// `run --residency-report` all read `heldAt`/`residencyRows`, so they cannot disagree.
import type { Inventory, OutsideKey } from './inventory.js';
import type { ResidencySample, Tier } from '../residency-types.js';

export type HeldTier = 'vram' | 'remote' | 'locked' | 'experts' | 'mapped';
/** In the order the view stacks them: copies that never move first. */
export const HELD_TIERS: readonly HeldTier[] = ['vram', 'remote', 'locked', 'experts', 'mapped'];

export const OUTSIDE_NAMES: Record<OutsideKey, string> = { token_embd: 'token embeddings', output: 'output head', output_norm: 'output norm', other: 'other tensors' };

/** The fixed part of a row: what the load put where. */
export interface ResidencyRowSpec {
  /** `blk.N` for a layer, else the kind of tensor outside the layers. */
  key: string;
  name: string;
  /** The layer's index; null for a row outside the layers. */
  layer: number | null;
  bytes: number;
  /** The layer's tier as the worker ran it; null outside the layers. */
  tier: Tier | null;
  /** Bytes on a GPU's memory. */
  vramBytes: number;
  /** Bytes on each RPC node, by endpoint. */
  remote: { endpoint: string; bytes: number }[];
  /** Bytes whose pages the stream schedule locks in the mapping. */
  lockedBytes: number;
  /** Bytes the stream schedule reads from storage on every pass. */
  streamedBytes: number;
  /** One expert's bytes in this layer's expert cache (0: no expert cache here). */
  expertBytes: number;
}

export interface HeldBytes {
  vram: number;
  remote: number;
  locked: number;
  experts: number;
  /** Resident pages of the mapping beyond the locked ones; null where mincore was not sampled. */
  mapped: number | null;
}

export interface ResidencyRow extends ResidencyRowSpec {
  held: HeldBytes;
  /** Every copy counted (a weight in the mapping and in an expert slot counts twice). */
  heldBytes: number;
  /** The tier holding most of the row; null when nothing holds any of it. */
  mainTier: HeldTier | null;
  /** Bytes of this row read from storage per decoded token; null where not observed. */
  readBytesPerToken: number | null;
}

export interface RowSpecInput {
  inventory: Pick<Inventory, 'tensors' | 'layers' | 'outside'>;
  tiers: readonly Tier[];
  /** Tensors the stream schedule locks and streams (empty under other policies). */
  locked: ReadonlySet<string>;
  streamed: ReadonlySet<string>;
  /** The expert cache: its tensors and the experts per layer (null: none). */
  expertCache: { tensors: ReadonlySet<string>; experts: number } | null;
}

const RPC_BUFFER = /^RPC\d*\[(.+)\]$/;

/** The rows' fixed part, from the inventory of what llama.cpp loaded and the schedule the worker runs. */
export function residencyRowSpecs(i: RowSpecInput): ResidencyRowSpec[] {
  const spec = (key: string, name: string, layer: number | null, tensors: Inventory['tensors']): ResidencyRowSpec => {
    const remote = new Map<string, number>();
    let vram = 0;
    for (const t of tensors) {
      if (t.backing !== 'device') continue;
      const ep = RPC_BUFFER.exec(t.buffer ?? '')?.[1];
      if (ep !== undefined) remote.set(ep, (remote.get(ep) ?? 0) + t.bytes);
      else vram += t.bytes;
    }
    const sum = (pick: (n: string) => boolean) => tensors.filter((t) => pick(t.name)).reduce((s, t) => s + t.bytes, 0);
    const x = i.expertCache;
    return {
      key,
      name,
      layer,
      bytes: tensors.reduce((s, t) => s + t.bytes, 0),
      tier: layer === null ? null : (i.tiers[layer] ?? 'pinned'),
      vramBytes: vram,
      remote: [...remote].map(([endpoint, bytes]) => ({ endpoint, bytes })),
      lockedBytes: sum((n) => i.locked.has(n)),
      streamedBytes: sum((n) => i.streamed.has(n)),
      expertBytes: x && x.experts > 0 ? sum((n) => x.tensors.has(n)) / x.experts : 0,
    };
  };
  const layers = i.inventory.layers.map((l) => spec(`blk.${l.index}`, `layer ${l.index}`, l.index, i.inventory.tensors.filter((t) => t.layer === l.index)));
  const outside = i.inventory.outside.map((o) => spec(o.key, OUTSIDE_NAMES[o.key], null, i.inventory.tensors.filter((t) => o.tensors.includes(t.name))));
  return [...layers, ...outside];
}

/** The rows outside the layers, in the order samples carry their mincore (`outsideResident`). */
export function outsideSpecs(specs: readonly ResidencyRowSpec[]): ResidencyRowSpec[] {
  return specs.filter((s) => s.layer === null);
}

/** mincore of a row's exclusive pages at a sample; null where not sampled. */
function mincoreOf(specs: readonly ResidencyRowSpec[], spec: ResidencyRowSpec, s: ResidencySample): number | null {
  if (spec.layer !== null) return s.layerResident[spec.layer] ?? null;
  return s.outsideResident?.[outsideSpecs(specs).indexOf(spec)] ?? null;
}

/** A row's bytes by tier at one sample. */
export function heldAt(specs: readonly ResidencyRowSpec[], spec: ResidencyRowSpec, s: ResidencySample | null): HeldBytes {
  const resident = s ? mincoreOf(specs, spec, s) : null;
  // Locked pages are pages of the mapping: mincore sees them, so they are taken out of it once.
  const locked = resident === null ? 0 : Math.min(spec.lockedBytes, resident);
  const slots = spec.layer === null ? undefined : s?.experts?.resident.find((r) => r.layer === spec.layer)?.slots;
  const filled = slots ? slots.filter((e) => e >= 0).length : 0;
  return {
    vram: spec.vramBytes,
    remote: spec.remote.reduce((a, r) => a + r.bytes, 0),
    locked,
    experts: filled * spec.expertBytes,
    mapped: resident === null ? null : resident - locked,
  };
}

export function heldTotal(h: HeldBytes): number {
  return h.vram + h.remote + h.locked + h.experts + (h.mapped ?? 0);
}

export function mainTierOf(h: HeldBytes): HeldTier | null {
  let best: HeldTier | null = null;
  let most = 0;
  for (const t of HELD_TIERS) {
    const v = h[t] ?? 0;
    if (v > most) {
      best = t;
      most = v;
    }
  }
  return best;
}

/**
 * Storage bytes the stream schedule read per decoded token, per layer, from its read events
 * across the decode samples; null where nothing observes the reads (no stream schedule).
 */
export function readBytesPerTokenByLayer(samples: readonly ResidencySample[], observed: boolean): Map<number, number> | null {
  if (!observed) return null;
  const decode = samples.filter((s) => s.phase === 'decode');
  if (decode.length < 2) return null;
  const tokens = (decode[decode.length - 1] as ResidencySample).token - (decode[0] as ResidencySample).token;
  if (tokens <= 0) return null;
  const out = new Map<number, number>();
  // The first decode sample's events belong to the prompt's pass: the window opens after it.
  for (const s of decode.slice(1)) for (const e of s.events) if (e.kind === 'prefetch') out.set(e.layer, (out.get(e.layer) ?? 0) + e.bytes / tokens);
  return out;
}

/** Every row at the last sample (the run's end), with what decode read of it per token. */
export function residencyRows(specs: readonly ResidencyRowSpec[], samples: readonly ResidencySample[], readsObserved: boolean): ResidencyRow[] {
  const last = samples.length > 0 ? (samples[samples.length - 1] as ResidencySample) : null;
  const reads = readBytesPerTokenByLayer(samples, readsObserved);
  return specs.map((spec) => {
    const held = heldAt(specs, spec, last);
    return { ...spec, held, heldBytes: heldTotal(held), mainTier: mainTierOf(held), readBytesPerToken: readOf(spec, reads) };
  });
}

/**
 * What a row read per token, where something observes it: the stream schedule's reads of a layer.
 * The expert cache counts its reads for the whole model, not per layer, and a tensor outside the
 * layers that is not held whole (token_embd, read a row per token) is read through page faults
 * nothing counts per tensor: unknown, never 0.
 */
function readOf(spec: ResidencyRowSpec, reads: Map<number, number> | null): number | null {
  if (reads === null || spec.expertBytes > 0) return null;
  if (spec.layer !== null) return reads.get(spec.layer) ?? 0;
  const whole = spec.lockedBytes + spec.vramBytes + spec.remote.reduce((a, r) => a + r.bytes, 0) >= spec.bytes;
  return whole ? 0 : null;
}

