// Which weights to stream (pure). Decode reads every weight once per token; a byte kept
// resident is never read again, a streamed byte is read every token, so the schedule keeps as
// many bytes resident as the budget allows and streams the rest. Which bytes stream does not
// change how many are read, but it changes how well reading overlaps compute: streamed tensors
// are spread evenly over the layers (every layer streams about the same share, largest tensors
// first), so the I/O thread always has the next unit to read while resident work computes.

/** A layer's weights as the selection needs them (a ModelView layer or the loaded inventory). */
export interface WeightLayer {
  readonly bytes: number;
  readonly tensors: readonly { readonly name: string; readonly nbytes: number }[];
}

/** Tensors smaller than this (norms, biases) share pages with their neighbours: never streamed. */
export const MIN_STREAMED_TENSOR_BYTES = 256 * 1024;

export interface StreamSelection {
  /** Names of the streamed tensors. */
  readonly tensors: string[];
  readonly bytes: number;
  /** Streamed bytes per layer, in the order of the layers given. */
  readonly perLayer: number[];
  /** The largest streamed tensor (the unit the window is sized in). */
  readonly largestTensorBytes: number;
}

/** The largest tensor that could be streamed from these layers (0 when none could). */
export function largestStreamable(layers: readonly WeightLayer[]): number {
  let m = 0;
  for (const l of layers) for (const t of l.tensors) if (t.nbytes >= MIN_STREAMED_TENSOR_BYTES && t.nbytes > m) m = t.nbytes;
  return m;
}

/**
 * Streams at least `targetBytes` of the layers' weights (everything streamable when the target
 * exceeds it), each layer taking its proportional share, the error carried to the next layer.
 * Only tensors of at most `maxTensorBytes` are candidates.
 */
export function selectStreamed(layers: readonly WeightLayer[], targetBytes: number, maxTensorBytes = Infinity): StreamSelection {
  const total = layers.reduce((s, l) => s + l.bytes, 0);
  const perLayer = layers.map(() => 0);
  const chosen = new Set<string>();
  let largest = 0;
  if (targetBytes <= 0 || total === 0) return { tensors: [], bytes: 0, perLayer, largestTensorBytes: 0 };
  const candidates = layers.map((l) =>
    [...l.tensors]
      .filter((t) => t.nbytes >= MIN_STREAMED_TENSOR_BYTES && t.nbytes <= maxTensorBytes)
      .sort((a, b) => b.nbytes - a.nbytes || a.name.localeCompare(b.name)),
  );
  let carry = 0;
  let streamed = 0;
  layers.forEach((l, i) => {
    let want = (targetBytes * l.bytes) / total + carry;
    for (const t of candidates[i] ?? []) {
      // Round to the nearest tensor: take it when that leaves the layer closer to its share.
      if (want < t.nbytes / 2) continue;
      chosen.add(t.name);
      perLayer[i] = (perLayer[i] as number) + t.nbytes;
      want -= t.nbytes;
      streamed += t.nbytes;
      largest = Math.max(largest, t.nbytes);
    }
    carry = want;
  });
  // Rounding can leave the total short: top up from the last layers backwards.
  for (let i = layers.length - 1; i >= 0 && streamed < targetBytes; i--) {
    for (const t of candidates[i] ?? []) {
      if (streamed >= targetBytes) break;
      if (chosen.has(t.name)) continue;
      chosen.add(t.name);
      perLayer[i] = (perLayer[i] as number) + t.nbytes;
      streamed += t.nbytes;
      largest = Math.max(largest, t.nbytes);
    }
  }
  // Whole tensors overshoot the target by up to the largest of them, and every byte over is
  // read each token for nothing: trade a chosen tensor for smaller ones that still reach it.
  if (Number.isFinite(targetBytes) && streamed > targetBytes) {
    const all = candidates.flatMap((c, i) => c.map((t) => ({ ...t, layer: i })));
    const pick = (t: { name: string; nbytes: number; layer: number }, on: boolean) => {
      if (on) chosen.add(t.name);
      else chosen.delete(t.name);
      const d = on ? t.nbytes : -t.nbytes;
      perLayer[t.layer] = (perLayer[t.layer] as number) + d;
      streamed += d;
    };
    const ascending = [...all].sort((a, b) => a.nbytes - b.nbytes);
    for (const t of [...ascending].reverse()) if (chosen.has(t.name) && t.nbytes <= streamed - targetBytes) pick(t, false);
    const swap = ascending.find((t) => chosen.has(t.name) && t.nbytes > streamed - targetBytes);
    if (swap) {
      const before = streamed;
      const added: typeof all = [];
      pick(swap, false);
      // Largest first while they fit in what is missing, then the smallest that crosses it.
      for (const t of [...ascending].reverse()) {
        if (chosen.has(t.name) || t === swap || t.nbytes > targetBytes - streamed) continue;
        pick(t, true);
        added.push(t);
      }
      const last = streamed < targetBytes ? ascending.find((t) => !chosen.has(t.name) && t !== swap && t.nbytes >= targetBytes - streamed) : undefined;
      if (last) {
        pick(last, true);
        added.push(last);
      }
      if (streamed < targetBytes || streamed >= before) {
        for (const t of added) pick(t, false);
        pick(swap, true);
      }
    }
  }
  largest = 0;
  for (const c of candidates) for (const t of c) if (chosen.has(t.name)) largest = Math.max(largest, t.nbytes);
  const order = layers.flatMap((l) => l.tensors.map((t) => t.name)).filter((n) => chosen.has(n));
  return { tensors: order, bytes: streamed, perLayer, largestTensorBytes: largest };
}

/** Headroom kept free under a cap: the larger of a fixed floor and a fraction of the cap. */
export const HEADROOM_MIN_BYTES = 4 * 1024 * 1024;
export const HEADROOM_FRACTION = 0.005;
/** What the kernel may read past a streamed unit (the device's read-ahead) when not measured. */
export const DEFAULT_READAHEAD_BYTES = 8 * 1024 * 1024;

export function headroomBytes(cap: number): number {
  return Math.max(HEADROOM_MIN_BYTES, Math.ceil(HEADROOM_FRACTION * cap));
}

/** The smallest cap whose headroom still leaves `need` bytes for everything else. */
export function capWithHeadroom(need: number): number {
  return Math.max(need + HEADROOM_MIN_BYTES, Math.ceil(need / (1 - HEADROOM_FRACTION)));
}

export interface StreamBudgetInput {
  readonly capBytes: number;
  /** Everything charged to the cap that is not a weight: process, KV cache, compute buffers. */
  readonly nonWeightBytes: number;
  /** Weights outside the layers that stay resident (output head, norms). */
  readonly persistentResidentBytes: number;
  /** The layers whose weights live in RAM (not VRAM). */
  readonly layers: readonly WeightLayer[];
  /** Units read ahead of the one in use, at most (the setting). */
  readonly prefetchDepth: number;
  readonly readaheadBytes: number;
}

export interface StreamBudget {
  readonly verdict: 'fits' | 'out-of-core' | 'cannot-run';
  /** Units read ahead: the setting at most; one layer's streamed units, less the one in use, at least one. */
  readonly prefetchDepth: number;
  readonly selection: StreamSelection;
  readonly unitBytes: number;
  readonly windowBytes: number;
  readonly readaheadBytes: number;
  readonly headroomBytes: number;
  /** Layer weights held resident. */
  readonly residentLayerBytes: number;
  /** Bytes left for layer weights after everything else (negative: below the minimum). */
  readonly layerBudgetBytes: number;
  readonly minimumCapBytes: number;
  readonly fullResidencyCapBytes: number;
}

/**
 * The cap's budget: non-weight memory, resident persistent weights, headroom, and — when the
 * layers do not all fit — the streaming window plus the kernel's read-ahead; what remains holds
 * layer weights resident, the rest streams.
 */
export function budgetStream(i: StreamBudgetInput): StreamBudget {
  const allLayers = i.layers.reduce((s, l) => s + l.bytes, 0);
  const largest = largestStreamable(i.layers);
  const headroom = headroomBytes(i.capBytes);
  const fixed = i.nonWeightBytes + i.persistentResidentBytes;
  const windowOf = (unit: number) => (i.prefetchDepth + 1) * unit;
  // Tensors too small to stream (norms, and every matrix of a narrow model) stay resident
  // whatever the cap: with nothing streamable the least that runs is full residency.
  const unstreamable = allLayers - i.layers.reduce((s, l) => s + l.tensors.reduce((a, t) => a + (t.nbytes >= MIN_STREAMED_TENSOR_BYTES ? t.nbytes : 0), 0), 0);
  const fullResidencyCapBytes = capWithHeadroom(fixed + allLayers);
  const minimumCapBytes = largest > 0 ? Math.min(fullResidencyCapBytes, capWithHeadroom(fixed + unstreamable + windowOf(largest) + i.readaheadBytes)) : fullResidencyCapBytes;
  const base = { readaheadBytes: i.readaheadBytes, headroomBytes: headroom, minimumCapBytes, fullResidencyCapBytes };
  if (allLayers <= i.capBytes - fixed - headroom) {
    const layerBudgetBytes = i.capBytes - fixed - headroom;
    return { ...base, prefetchDepth: i.prefetchDepth, unitBytes: largest, windowBytes: windowOf(largest), verdict: 'fits', selection: selectStreamed([], 0), residentLayerBytes: allLayers, layerBudgetBytes };
  }
  // The window is sized in the largest streamed tensor, and every byte of it is a byte of
  // weights that cannot stay resident. When little has to stream (a cap near the model's size),
  // streaming only smaller tensors (the attention projections rather than the feed-forward
  // matrices) shrinks the window, and what it gives back stays resident: the smallest tensor
  // size whose tensors can carry what must stream is the unit.
  const sizes = [...new Set(i.layers.flatMap((l) => l.tensors.map((t) => t.nbytes)).filter((b) => b >= MIN_STREAMED_TENSOR_BYTES))].sort((a, b) => a - b);
  let unitBytes = largest;
  for (const size of sizes) {
    const budget = i.capBytes - fixed - headroom - windowOf(size) - i.readaheadBytes;
    const streamable = i.layers.reduce((s, l) => s + l.tensors.filter((t) => t.nbytes >= MIN_STREAMED_TENSOR_BYTES && t.nbytes <= size).reduce((a, t) => a + t.nbytes, 0), 0);
    if (budget >= 0 && streamable >= allLayers - budget) {
      unitBytes = size;
      break;
    }
  }
  const split = (depth: number) => {
    const budget = i.capBytes - fixed - headroom - (depth + 1) * unitBytes - i.readaheadBytes;
    return { depth, budget, selection: selectStreamed(i.layers, allLayers - Math.max(0, budget), unitBytes) };
  };
  // A window of one layer's streamed units is enough: while a layer computes, the next layer's
  // units are read. A deeper read-ahead only holds weights that could have stayed resident.
  // The read-ahead is the setting at most, at least one unit (1b preset, alternating runs:
  // at 90 % of its file depth 1 and 2 decode at the same speed, depth 1 reading 9 MiB less a
  // token; at 75 % depth 2 and 3 the same; at 50 % depth 3 is a few % faster than 2).
  let chosen = split(i.prefetchDepth);
  const perLayerUnits = Math.ceil(chosen.selection.bytes / Math.max(1, i.layers.length * unitBytes));
  const depth = Math.min(i.prefetchDepth, Math.max(1, perLayerUnits - 1));
  if (depth < i.prefetchDepth && chosen.budget >= 0) chosen = split(depth);
  const { budget: layerBudget, selection } = chosen;
  const window = (chosen.depth + 1) * unitBytes;
  return {
    ...base,
    prefetchDepth: chosen.depth,
    unitBytes,
    windowBytes: window,
    // What must stream has to be streamable: below that the cap cannot run.
    verdict: layerBudget >= 0 && unitBytes > 0 && selection.bytes >= allLayers - layerBudget ? 'out-of-core' : 'cannot-run',
    selection,
    residentLayerBytes: allLayers - selection.bytes,
    layerBudgetBytes: layerBudget,
  };
}
