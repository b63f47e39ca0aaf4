// Routing traces: which experts a mixture of experts' routers chose, token by token and layer by
// layer, in the `# route_trace v1` CSV that public MoE runtimes publish and that RAMforge writes
// (route-trace-write.ts). Parsed into what a replay needs: per phase (0 the prompt, 1 decoding),
// per step, per MoE layer (in layer order), the `used` experts chosen, -1 where a step has no
// choice for a layer (llama.cpp computes a prompt's last layer for its last token only). Pure.

export const ROUTE_TRACE_MAGIC = '# route_trace v1';
export const ROUTE_TRACE_HEADER = 'turn,phase,step,layer,slot,expert,weight,residency,expert_bytes';

export interface RouteTrace {
  /** From the comment lines, when given. */
  model: string | null;
  arch: string | null;
  /** The model's layer index of each MoE layer the trace routes, ascending. */
  layerIds: number[];
  experts: number;
  used: number;
  promptSteps: number;
  decodeSteps: number;
  /** [step][layer i][slot] expert ids, -1 where missing; turns one after another. */
  prompt: Int32Array;
  decode: Int32Array;
  /** Per comment `# layer=N expert_bytes=B`: the recording model's bytes of one expert. */
  expertBytes: Map<number, number>;
}

export class RouteTraceError extends Error {}

/** The shape a replay must match: MoE layers, experts per layer, experts per token. */
export interface RouteShape {
  layers: number;
  experts: number;
  used: number;
}

export const describeShape = (s: RouteShape): string => `${s.layers} MoE layers × ${s.experts} experts, ${s.used} per token`;

interface Row {
  turn: number;
  phase: number;
  step: number;
  layer: number;
  slot: number;
  expert: number;
}

function header(lines: string[]): { model: string | null; arch: string | null; nums: Map<string, number>; expertBytes: Map<number, number> } {
  let model: string | null = null;
  let arch: string | null = null;
  const nums = new Map<string, number>();
  const expertBytes = new Map<number, number>();
  for (const line of lines) {
    const fields = new Map(
      line
        .slice(1)
        .trim()
        .split(/\s+/)
        .map((kv) => kv.split('=') as [string, string?])
        .filter((kv): kv is [string, string] => kv.length === 2 && kv[1] !== undefined),
    );
    if (fields.has('layer') && fields.has('expert_bytes')) {
      expertBytes.set(Number(fields.get('layer')), Number(fields.get('expert_bytes')));
      continue;
    }
    for (const [k, v] of fields) {
      if (k === 'model') model = v;
      else if (k === 'arch') arch = v;
      else if (/^n_(layer|expert|expert_used)$/.test(k) && /^\d+$/.test(v)) nums.set(k, Number(v));
    }
  }
  return { model, arch, nums, expertBytes };
}

const INT = /^-?\d+$/;

function parseRow(line: string, lineNo: number, cols: Map<string, number>): Row {
  const f = line.split(',');
  const get = (name: string): number => {
    const v = (f[cols.get(name) as number] ?? '').trim();
    if (!INT.test(v)) throw new RouteTraceError(`line ${lineNo}: ${name} must be an integer, got '${v.slice(0, 20)}'`);
    return Number(v);
  };
  const r = { turn: get('turn'), phase: get('phase'), step: get('step'), layer: get('layer'), slot: get('slot'), expert: get('expert') };
  if (r.phase !== 0 && r.phase !== 1) throw new RouteTraceError(`line ${lineNo}: phase must be 0 (prompt) or 1 (decode), got ${r.phase}`);
  if (r.turn < 0 || r.step < 0 || r.layer < 0 || r.slot < 0 || r.expert < 0) throw new RouteTraceError(`line ${lineNo}: negative turn, step, layer, slot or expert`);
  return r;
}

/** Rows grouped into the steps of each phase, turn after turn, as a replay walks them. */
function toSteps(rows: Row[], phase: number, layerIndex: Map<number, number>, used: number): { steps: number; ids: Int32Array } {
  const keys: string[] = [];
  const at = new Map<string, number>();
  const mine = rows.filter((r) => r.phase === phase).sort((a, b) => a.turn - b.turn || a.step - b.step);
  for (const r of mine) {
    const key = `${r.turn}:${r.step}`;
    if (!at.has(key)) {
      at.set(key, keys.length);
      keys.push(key);
    }
  }
  const L = layerIndex.size;
  const ids = new Int32Array(keys.length * L * used).fill(-1);
  for (const r of mine) {
    const base = ((at.get(`${r.turn}:${r.step}`) as number) * L + (layerIndex.get(r.layer) as number)) * used;
    ids[base + r.slot] = r.expert;
  }
  return { steps: keys.length, ids };
}

/** Each (phase, step, layer) either routes all `used` slots to distinct experts, or is absent. */
function checkComplete(ids: Int32Array, used: number, what: string): void {
  for (let i = 0; i < ids.length; i += used) {
    const row = Array.from(ids.subarray(i, i + used));
    const missing = row.filter((e) => e < 0).length;
    if (missing > 0 && missing < used) throw new RouteTraceError(`${what}: a step routes ${used - missing} of its ${used} experts on one layer`);
    if (missing === 0 && new Set(row).size !== used) throw new RouteTraceError(`${what}: a step routes the same expert twice on one layer`);
  }
}

export function parseRouteTrace(text: string): RouteTrace {
  const lines = text.split(/\r?\n/);
  if ((lines[0] ?? '').trim() !== ROUTE_TRACE_MAGIC) throw new RouteTraceError(`not a routing trace: the first line must be '${ROUTE_TRACE_MAGIC}'`);
  const comments = lines.filter((l) => l.startsWith('#'));
  const body = lines.map((l, i) => ({ l: l.trim(), n: i + 1 })).filter((x) => x.l !== '' && !x.l.startsWith('#'));
  const head = body.shift();
  const names = (head?.l ?? '').split(',').map((s) => s.trim());
  const cols = new Map(names.map((n, i) => [n, i]));
  for (const need of ['turn', 'phase', 'step', 'layer', 'slot', 'expert'])
    if (!cols.has(need)) throw new RouteTraceError(`the CSV header must name ${ROUTE_TRACE_HEADER.split(',').slice(0, 6).join(', ')}; '${need}' is missing`);
  const rows = body.map((x) => parseRow(x.l, x.n, cols));
  if (rows.length === 0) throw new RouteTraceError('the trace routes no token');
  const h = header(comments);
  const layerIds = [...new Set(rows.map((r) => r.layer))].sort((a, b) => a - b);
  const used = h.nums.get('n_expert_used') ?? Math.max(...rows.map((r) => r.slot)) + 1;
  const experts = h.nums.get('n_expert') ?? Math.max(...rows.map((r) => r.expert)) + 1;
  const declaredLayers = h.nums.get('n_layer');
  if (declaredLayers !== undefined && declaredLayers !== layerIds.length) throw new RouteTraceError(`the trace says n_layer=${declaredLayers} but routes ${layerIds.length} layers`);
  for (const r of rows) {
    if (r.slot >= used) throw new RouteTraceError(`slot ${r.slot} is past the ${used} experts a token uses`);
    if (r.expert >= experts) throw new RouteTraceError(`expert ${r.expert} is past the ${experts} experts of a layer`);
  }
  const layerIndex = new Map(layerIds.map((l, i) => [l, i]));
  const prompt = toSteps(rows, 0, layerIndex, used);
  const decode = toSteps(rows, 1, layerIndex, used);
  if (decode.steps === 0) throw new RouteTraceError('the trace has no decode steps (phase 1)');
  checkComplete(prompt.ids, used, 'prompt');
  checkComplete(decode.ids, used, 'decode');
  return { model: h.model, arch: h.arch, layerIds, experts, used, promptSteps: prompt.steps, decodeSteps: decode.steps, prompt: prompt.ids, decode: decode.ids, expertBytes: h.expertBytes };
}

/** Why a trace cannot be replayed on a model of this shape (both named), else null. */
export function traceShapeMismatch(trace: RouteTrace, model: RouteShape): string | null {
  const t: RouteShape = { layers: trace.layerIds.length, experts: trace.experts, used: trace.used };
  if (t.layers === model.layers && t.experts === model.experts && t.used === model.used) return null;
  return `the routing trace is for ${describeShape(t)}; the model has ${describeShape(model)}`;
}
