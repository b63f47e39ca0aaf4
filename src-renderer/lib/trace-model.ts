// The graph-trace manifest of a report (graph_trace; GraphTraceManifest in
// src-main/shared/graph-trace/manifest.ts): node groups in execution order, per layer, with the
// weight tensors each touches and where each tensor is last used.
import { arr, bool, field, num, str } from './fields.js';

export interface TraceTensor {
  name: string;
  bytes: number | null;
  /** The last node group in the trace that reads this tensor. */
  lastUseGroup: number | null;
  /** Index of the last node that reads it (from the manifest's tensor list), when known. */
  lastUseNode: number | null;
}

export interface TraceGroup {
  order: number;
  layer: number | null;
  phase: string | null;
  ops: string[];
  nodes: number;
  tensors: TraceTensor[];
}

export interface TraceInfo {
  complete: boolean;
  reason: string | null;
  nodeCount: number | null;
  eventCount: number | null;
  droppedEvents: number | null;
  edges: number | null;
  profileNote: string | null;
  groups: TraceGroup[];
}

function tensor(t: unknown, lastNode: Map<string, number>): TraceTensor {
  const name = typeof t === 'string' ? t : (str(t, 'name', 'tensor') ?? '?');
  return {
    name,
    bytes: typeof t === 'string' ? null : num(t, 'bytes', 'nbytes'),
    lastUseGroup: typeof t === 'string' ? null : num(t, 'lastUseGroup', 'lastUse'),
    lastUseNode: lastNode.get(name) ?? (typeof t === 'string' ? null : num(t, 'lastUseNode')),
  };
}

export function normalizeTrace(raw: unknown): TraceInfo {
  const truncated = bool(raw, 'truncated', 'incomplete');
  const complete = bool(raw, 'complete');
  const lastNode = new Map<string, number>();
  for (const t of arr(raw, 'tensors')) {
    const name = str(t, 'name');
    const last = num(t, 'lastUse');
    if (name !== null && last !== null) lastNode.set(name, last);
  }
  const groups = arr(raw, 'groups', 'nodeGroups').map((g, i) => {
    const nodes = field(g, 'nodes');
    const opsRaw = field(g, 'ops');
    const ops = Array.isArray(opsRaw)
      ? opsRaw.filter((o): o is string => typeof o === 'string')
      : Array.isArray(nodes)
        ? nodes.map((n) => (typeof n === 'string' ? n : (str(n, 'op', 'name') ?? '?')))
        : [];
    const layer = num(g, 'layer');
    return {
      order: num(g, 'order', 'group', 'index', 'id') ?? i,
      layer: layer === null || layer < 0 ? null : layer,
      phase: str(g, 'phase'),
      ops,
      nodes: Array.isArray(nodes) ? nodes.length : (num(g, 'nodes', 'nodeCount') ?? ops.length),
      tensors: arr(g, 'weights', 'tensors', 'resources').map((t) => tensor(t, lastNode)),
    };
  });
  // The last group that touches each tensor, where the manifest does not say.
  const lastGroup = new Map<string, number>();
  for (const g of groups) for (const t of g.tensors) lastGroup.set(t.name, g.order);
  for (const g of groups) for (const t of g.tensors) if (t.lastUseGroup === null) t.lastUseGroup = lastGroup.get(t.name) ?? null;
  const nodeList = field(raw, 'nodes');
  return {
    complete: complete ?? (truncated === null ? true : !truncated),
    reason: str(raw, 'reason', 'incompleteReason', 'truncatedReason'),
    nodeCount: Array.isArray(nodeList) && nodeList.length > 0 ? nodeList.length : num(raw, 'nodeCount'),
    eventCount: num(raw, 'events', 'eventCount'),
    droppedEvents: num(raw, 'dropped', 'droppedEvents'),
    edges: num(raw, 'edges'),
    profileNote: str(raw, 'profileNote'),
    groups,
  };
}
