// A run's routing written as a `# route_trace v1` CSV (route-trace.ts reads it back, as do the
// public tools that publish the format): comment lines with the model's shape and each MoE
// layer's bytes of one expert, the header, then one row per routed expert. `residency` (the
// recording runtime's own cache state, which readers ignore) is written 0; `weight` is empty
// where the weights were not recorded. Pure.
import { ROUTE_TRACE_HEADER, ROUTE_TRACE_MAGIC } from './route-trace.js';

export interface TraceHeaderInput {
  /** The model file's name (never a path of this machine). */
  model: string;
  arch: string;
  layerIds: readonly number[];
  experts: number;
  used: number;
  expertBytes: ReadonlyMap<number, number>;
}

export function traceHeader(h: TraceHeaderInput): string {
  const lines = [ROUTE_TRACE_MAGIC, `# model=${h.model.replace(/\s+/g, '_')} arch=${h.arch} n_layer=${h.layerIds.length} n_expert=${h.experts} n_expert_used=${h.used}`];
  for (const l of h.layerIds) lines.push(`# layer=${l} expert_bytes=${h.expertBytes.get(l) ?? 0}`);
  lines.push(ROUTE_TRACE_HEADER);
  return lines.join('\n') + '\n';
}

/** What the native tap hands over: per selection [turn, phase, first step, layer, tokens], then `used` ids per token. */
export interface TakenRouting {
  selections: Int32Array;
  ids: Int32Array;
  weights: Float32Array;
}

export function traceRows(t: TakenRouting, used: number, expertBytes: ReadonlyMap<number, number>): string {
  const out: string[] = [];
  let at = 0;
  for (let s = 0; s + 4 < t.selections.length; s += 5) {
    const [turn, phase, first, layer, cols] = Array.from(t.selections.subarray(s, s + 5)) as [number, number, number, number, number];
    const bytes = expertBytes.get(layer) ?? 0;
    for (let j = 0; j < cols; j++)
      for (let i = 0; i < used; i++, at++) {
        const w = t.weights.length > at ? t.weights[at] as number : NaN;
        out.push(`${turn},${phase},${first + j},${layer},${i},${t.ids[at]},${Number.isNaN(w) ? '' : w.toPrecision(6)},0,${bytes}`);
      }
  }
  return out.length > 0 ? out.join('\n') + '\n' : '';
}
