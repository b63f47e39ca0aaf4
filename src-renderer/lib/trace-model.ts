// The graph-trace manifest summary of a report: node groups in execution order, per layer,
// with the weight tensors each touches and where each tensor is last used.
import { arr, bool, field, num, str } from './fields.js';

export interface TraceTensor {
  name: string;
  bytes: number | null;
  /** Index of the node group where this tensor is used for the last time in the trace. */
  lastUse: number | null;
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
  groups: TraceGroup[];
}

function tensor(t: unknown): TraceTensor {
  if (typeof t === 'string') return { name: t, bytes: null, lastUse: null };
  return { name: str(t, 'name', 'tensor') ?? '?', bytes: num(t, 'bytes', 'nbytes'), lastUse: num(t, 'lastUse', 'lastUseGroup', 'lastUseNode') };
}

export function normalizeTrace(raw: unknown): TraceInfo {
  const truncated = bool(raw, 'truncated', 'incomplete');
  const complete = bool(raw, 'complete');
  const groups = arr(raw, 'groups', 'nodeGroups', 'manifest').map((g, i) => {
    const nodes = field(g, 'nodes');
    const opsRaw = field(g, 'ops');
    const ops = Array.isArray(opsRaw)
      ? opsRaw.filter((o): o is string => typeof o === 'string')
      : Array.isArray(nodes)
        ? nodes.map((n) => (typeof n === 'string' ? n : str(n, 'op', 'name') ?? '?'))
        : [];
    return {
      order: num(g, 'order', 'index', 'id') ?? i,
      layer: num(g, 'layer'),
      phase: str(g, 'phase'),
      ops,
      nodes: Array.isArray(nodes) ? nodes.length : num(g, 'nodes', 'nodeCount') ?? ops.length,
      tensors: arr(g, 'tensors', 'weights', 'resources').map(tensor),
    };
  });
  // Fill last use from the order of appearance when the manifest does not carry it.
  const last = new Map<string, number>();
  for (const g of groups) for (const t of g.tensors) last.set(t.name, g.order);
  for (const g of groups) for (const t of g.tensors) if (t.lastUse === null) t.lastUse = last.get(t.name) ?? null;
  return {
    complete: complete ?? (truncated === null ? true : !truncated),
    reason: str(raw, 'incompleteReason', 'truncatedReason', 'reason'),
    nodeCount: num(raw, 'nodeCount', 'nodes'),
    eventCount: num(raw, 'eventCount', 'events'),
    droppedEvents: num(raw, 'droppedEvents', 'dropped'),
    groups,
  };
}
