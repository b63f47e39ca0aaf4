// What an expert cache of the run's size would have read for the routing the run saw: Belady's
// offline optimum (the floor of any cache of that size: an MoE's floor, as the plan's floor
// bytes are a dense model's) and LRU as the runtime evicts, per MoE layer, in bytes. Pure.
import { simulateBelady, simulateLru, type RouteRequest } from './cache-sim.js';
import type { TakenRouting } from './route-trace-write.js';

/** Per model layer, its requests in order: one per micro-batch, the distinct experts its tokens chose. */
export type LayerRequests = Map<number, RouteRequest[]>;

/**
 * Requests kept per layer: a long session (serve) must not grow the worker without bound under
 * its cap, so past this the oldest half is let go and the optimum covers the newer requests.
 */
export const MAX_REQUESTS_PER_LAYER = 16384;

/** Adds what the tap took; returns how many requests were let go to stay within the bound. */
export function addRequests(into: LayerRequests, t: TakenRouting, used: number, max = MAX_REQUESTS_PER_LAYER): number {
  let dropped = 0;
  let at = 0;
  for (let s = 0; s + 4 < t.selections.length; s += 5) {
    const phase = t.selections[s + 1] as number;
    const layer = t.selections[s + 3] as number;
    const cols = t.selections[s + 4] as number;
    const experts = [...new Set(Array.from(t.ids.subarray(at, at + cols * used)))];
    at += cols * used;
    let list = into.get(layer) ?? [];
    list.push({ phase, experts });
    if (list.length > max) {
      const cut = Math.floor(list.length / 2);
      list = list.slice(cut);
      dropped += cut;
    }
    into.set(layer, list);
  }
  return dropped;
}

export interface RoutingOptimum {
  slotsPerLayer: number;
  /** Whole run (prompt micro-batches warm the cache and read what they lack). */
  optimalReadBytes: number;
  lruReadBytes: number;
  /** Decode steps alone (the prompt's reads excluded, its warming kept). */
  optimalDecodeReadBytes: number;
  lruDecodeReadBytes: number;
  /** Decode requests of one layer (tokens decoded, as the cache saw them). */
  decodeSteps: number;
}

export function routingOptimum(reqs: LayerRequests, slotsPerLayer: number, expertBytes: ReadonlyMap<number, number>): RoutingOptimum {
  const out: RoutingOptimum = { slotsPerLayer, optimalReadBytes: 0, lruReadBytes: 0, optimalDecodeReadBytes: 0, lruDecodeReadBytes: 0, decodeSteps: 0 };
  for (const [layer, list] of reqs) {
    const bytes = expertBytes.get(layer) ?? 0;
    const opt = simulateBelady(list, slotsPerLayer);
    const lru = simulateLru(list, slotsPerLayer);
    out.optimalReadBytes += opt.misses * bytes;
    out.optimalDecodeReadBytes += opt.decodeMisses * bytes;
    out.lruReadBytes += lru.misses * bytes;
    out.lruDecodeReadBytes += lru.decodeMisses * bytes;
    out.decodeSteps = Math.max(out.decodeSteps, opt.decodeRequests);
  }
  return out;
}
