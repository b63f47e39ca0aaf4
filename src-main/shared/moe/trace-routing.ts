// A routing trace as the planner uses it: per MoE layer, the requests an expert cache would see
// replaying it (the prompt as one micro-batch, then one request per decode step), and the decode
// hit rate of a cache of a given size — LRU as the runtime evicts, or Belady's optimum, the best
// any cache of that size could do. Pure.
import { simulateBelady, simulateLru, type RouteRequest } from './cache-sim.js';
import type { RouteTrace } from './route-trace.js';

export interface TraceRouting {
  /** The trace's file name, for the plan's text. */
  readonly name: string;
  readonly decodeSteps: number;
  readonly layers: readonly (readonly RouteRequest[])[];
}

export function traceRouting(name: string, t: RouteTrace): TraceRouting {
  const L = t.layerIds.length;
  const k = t.used;
  const row = (ids: Int32Array, step: number, l: number): number[] => Array.from(ids.subarray((step * L + l) * k, (step * L + l + 1) * k));
  const layers: RouteRequest[][] = [];
  for (let l = 0; l < L; l++) {
    const prompt = new Set<number>();
    for (let s = 0; s < t.promptSteps; s++) for (const e of row(t.prompt, s, l)) if (e >= 0) prompt.add(e);
    const reqs: RouteRequest[] = prompt.size > 0 ? [{ phase: 0, experts: [...prompt] }] : [];
    for (let s = 0; s < t.decodeSteps; s++) reqs.push({ phase: 1, experts: row(t.decode, s, l) });
    layers.push(reqs);
  }
  return { name, decodeSteps: t.decodeSteps, layers };
}

/** Decode hits ÷ decode experts routed, over every layer, of a cache of `perLayer` of `experts` experts per layer (its cold misses counted). */
export function traceHitRate(r: TraceRouting, perLayer: number, policy: 'lru' | 'optimal', experts: number): number {
  // Every expert held: loaded with the model, nothing is read (no cold misses either).
  if (perLayer >= experts) return 1;
  let routed = 0;
  let misses = 0;
  for (const reqs of r.layers) {
    const s = policy === 'lru' ? simulateLru(reqs, perLayer) : simulateBelady(reqs, perLayer);
    routed += s.decodeRouted;
    misses += s.decodeMisses;
  }
  return routed > 0 ? 1 - misses / routed : 0;
}

/**
 * The requests a run of `tokens` decoded tokens sees of the trace: the prompt, then that many
 * decode steps, from the first, starting over where the run outlasts the trace (as the runtime
 * replays it). A short run's cache is still warming: its hit rate is not the trace's steady one.
 */
export function firstDecodeSteps(r: TraceRouting, tokens: number): TraceRouting {
  const n = Math.max(0, Math.floor(tokens));
  const layers = r.layers.map((reqs) => {
    const prompt = reqs.filter((q) => q.phase === 0);
    const decode = reqs.filter((q) => q.phase === 1);
    return decode.length === 0 ? prompt : [...prompt, ...Array.from({ length: n }, (_, i) => decode[i % decode.length] as RouteRequest)];
  });
  return { name: r.name, decodeSteps: n, layers };
}
