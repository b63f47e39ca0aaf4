// Pure: turns the scheduler nodes captured during one traced decode into a manifest — nodes in
// order with their node group and layer, weight tensors and the nodes that read them (first and
// last use), edges — and an execution profile that reuse-aware release consumes. A capture that
// hit its bound is marked incomplete, and its profile is refused.

export interface TracedNode {
  name: string;
  op: string;
  srcs: string[];
  bytes: number;
  group: number;
}

export interface RawTrace {
  nodes: TracedNode[];
  dropped: number;
  captured: boolean;
}

export interface ManifestNode extends TracedNode {
  index: number;
  layer: number;
  /** Weight tensors this node reads. */
  weights: string[];
}

export interface ManifestTensor {
  name: string;
  layer: number;
  firstUse: number;
  lastUse: number;
  uses: number;
}

export interface ManifestGroup {
  group: number;
  layer: number;
  nodes: number;
  ops: string[];
  weights: string[];
}

export interface GraphTraceManifest {
  complete: boolean;
  reason: string | null;
  events: number;
  dropped: number;
  nodes: ManifestNode[];
  groups: ManifestGroup[];
  tensors: ManifestTensor[];
  edges: number;
}

function nodeLayer(name: string): number {
  const m = /-(\d+)$/.exec(name);
  return m ? Number(m[1]) : -1;
}

function weightLayer(name: string): number {
  const m = /^blk\.(\d+)\./.exec(name);
  return m ? Number(m[1]) : -1;
}

export function buildManifest(raw: RawTrace, weightNames: ReadonlySet<string>): GraphTraceManifest {
  const reason = !raw.captured
    ? 'no single-token decode was traced'
    : raw.dropped > 0
      ? `the event bound was reached: ${raw.dropped} node events dropped`
      : null;
  const nodes: ManifestNode[] = raw.nodes.map((n, index) => ({
    ...n,
    index,
    layer: nodeLayer(n.name),
    weights: n.srcs.filter((s) => weightNames.has(s)),
  }));
  const tensors = new Map<string, ManifestTensor>();
  let edges = 0;
  for (const n of nodes) {
    edges += n.srcs.length;
    for (const w of n.weights) {
      const t = tensors.get(w);
      if (t) {
        t.lastUse = n.index;
        t.uses++;
      } else tensors.set(w, { name: w, layer: weightLayer(w), firstUse: n.index, lastUse: n.index, uses: 1 });
    }
  }
  const groups = new Map<number, ManifestGroup>();
  for (const n of nodes) {
    let g = groups.get(n.group);
    if (!g) {
      g = { group: n.group, layer: n.layer, nodes: 0, ops: [], weights: [] };
      groups.set(n.group, g);
    }
    g.nodes++;
    if (g.layer < 0 && n.layer >= 0) g.layer = n.layer;
    if (!g.ops.includes(n.op)) g.ops.push(n.op);
    for (const w of n.weights) if (!g.weights.includes(w)) g.weights.push(w);
  }
  return {
    complete: reason === null,
    reason,
    events: nodes.length,
    dropped: raw.dropped,
    nodes,
    groups: [...groups.values()].sort((a, b) => a.group - b.group),
    tensors: [...tensors.values()].sort((a, b) => a.firstUse - b.firstUse),
    edges,
  };
}

/**
 * reuse-aware's release order from a complete profile: the layer whose weights are needed
 * latest in the next token goes first (Belady's choice for a repeating schedule).
 * Throws when the trace is incomplete — a partial profile would rank layers it never saw.
 */
export function releaseOrderFromProfile(m: GraphTraceManifest, nLayers: number): number[] {
  if (!m.complete) throw new Error(`graph-trace profile refused: ${m.reason}`);
  const first = new Map<number, number>();
  for (const t of m.tensors) if (t.layer >= 0 && !first.has(t.layer)) first.set(t.layer, t.firstUse);
  const layers = Array.from({ length: nLayers }, (_, i) => i);
  const missing = layers.filter((l) => !first.has(l));
  if (missing.length) throw new Error(`graph-trace profile refused: layers ${missing.join(', ')} never appear in it`);
  return layers.sort((a, b) => (first.get(b) as number) - (first.get(a) as number));
}
