// Routing statistics a run measured (the expert cache counts how many micro-batches each
// expert of each layer was routed to), turned into what the planner's cache model takes: the
// probability that the expert of each popularity rank is among a token's experts. Pure.

/** What runs of one model recorded: per MoE layer, the micro-batches routed to each expert. */
export interface RoutingRecord {
  experts: number;
  used: number;
  /** Micro-batches routed, counted once per layer (decoded tokens, prompt micro-batches). */
  batches: number;
  layers: { layer: number; uses: number[] }[];
  /**
   * Read-ahead under the expert cache: routed experts the cache did not hold (a read each, without
   * read-ahead), and of them read ahead on a prediction. Absent in records of older runs.
   */
  readAhead?: { needed: number; covered: number };
}

/** Reads needed before read-ahead's share says anything about a model. */
export const MIN_READ_AHEAD_NEEDED = 200;

/** The share of the reads the expert cache needed that read-ahead had started in time, or null when too few were seen. */
export function readAheadShare(r: RoutingRecord): number | null {
  const a = r.readAhead;
  if (!a || a.needed < MIN_READ_AHEAD_NEEDED) return null;
  return Math.min(1, Math.max(0, a.covered / a.needed));
}

export interface MeasuredRouting {
  /** By popularity rank (0 = most routed), summing to the experts a token uses. */
  popularity: number[];
  batches: number;
}

/** Fewer micro-batches than this say too little about the routing to plan by. */
export const MIN_MEASURED_BATCHES = 64;

/** Each layer's experts sorted by use, shares averaged over layers, scaled to `used` per token; null when too little was seen. */
export function measuredPopularity(r: RoutingRecord): MeasuredRouting | null {
  if (r.batches < MIN_MEASURED_BATCHES || r.layers.length === 0 || r.experts < 2 || r.used < 1) return null;
  const sum = new Array<number>(r.experts).fill(0);
  let counted = 0;
  for (const l of r.layers) {
    const total = l.uses.reduce((a, b) => a + b, 0);
    if (total <= 0) continue;
    const sorted = [...l.uses, ...new Array<number>(Math.max(0, r.experts - l.uses.length)).fill(0)].slice(0, r.experts).sort((a, b) => b - a);
    sorted.forEach((u, i) => (sum[i] = (sum[i] as number) + u / total));
    counted++;
  }
  if (counted === 0) return null;
  return { popularity: sum.map((s) => (s / counted) * r.used), batches: r.batches };
}

/** Two records of the same model added together (a later run adds to what earlier ones saw). */
export function mergeRouting(a: RoutingRecord | null, b: RoutingRecord): RoutingRecord {
  if (!a || a.experts !== b.experts || a.used !== b.used) return b;
  const ra = a.readAhead && b.readAhead ? { needed: a.readAhead.needed + b.readAhead.needed, covered: a.readAhead.covered + b.readAhead.covered } : (b.readAhead ?? a.readAhead);
  const byLayer = new Map(a.layers.map((l) => [l.layer, [...l.uses]]));
  for (const l of b.layers) {
    const u = byLayer.get(l.layer) ?? new Array<number>(b.experts).fill(0);
    l.uses.forEach((x, i) => (u[i] = (u[i] ?? 0) + x));
    byLayer.set(l.layer, u);
  }
  return { experts: b.experts, used: b.used, batches: a.batches + b.batches, layers: [...byLayer.entries()].sort((x, y) => x[0] - y[0]).map(([layer, uses]) => ({ layer, uses })), ...(ra ? { readAhead: ra } : {}) };
}
