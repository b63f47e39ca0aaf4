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
 */
export function selectStreamed(layers: readonly WeightLayer[], targetBytes: number): StreamSelection {
  const total = layers.reduce((s, l) => s + l.bytes, 0);
  const perLayer = layers.map(() => 0);
  const chosen = new Set<string>();
  let largest = 0;
  if (targetBytes <= 0 || total === 0) return { tensors: [], bytes: 0, perLayer, largestTensorBytes: 0 };
  const candidates = layers.map((l) =>
    [...l.tensors].filter((t) => t.nbytes >= MIN_STREAMED_TENSOR_BYTES).sort((a, b) => b.nbytes - a.nbytes || a.name.localeCompare(b.name)),
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
  /** Units read ahead of the one in use. */
  readonly prefetchDepth: number;
  readonly readaheadBytes: number;
}

export interface StreamBudget {
  readonly verdict: 'fits' | 'out-of-core' | 'cannot-run';
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
  const unitBytes = largestStreamable(i.layers);
  const window = (i.prefetchDepth + 1) * unitBytes;
  const headroom = headroomBytes(i.capBytes);
  const fixed = i.nonWeightBytes + i.persistentResidentBytes;
  const minimumCapBytes = capWithHeadroom(fixed + window + i.readaheadBytes);
  const fullResidencyCapBytes = capWithHeadroom(fixed + allLayers);
  const base = { unitBytes, windowBytes: window, readaheadBytes: i.readaheadBytes, headroomBytes: headroom, minimumCapBytes, fullResidencyCapBytes };
  if (allLayers <= i.capBytes - fixed - headroom) {
    return { ...base, verdict: 'fits', selection: selectStreamed([], 0), residentLayerBytes: allLayers, layerBudgetBytes: i.capBytes - fixed - headroom };
  }
  const layerBudget = i.capBytes - fixed - headroom - window - i.readaheadBytes;
  const selection = selectStreamed(i.layers, allLayers - Math.max(0, layerBudget));
  return {
    ...base,
    verdict: layerBudget >= 0 && unitBytes > 0 ? 'out-of-core' : 'cannot-run',
    selection,
    residentLayerBytes: allLayers - selection.bytes,
    layerBudgetBytes: layerBudget,
  };
}
