// What a report says of a mixture of experts' routing: the trace replayed (and how often it
// started over), the file the routing went to, and the expert cache's reads set against what
// Belady's offline-optimal cache of the same size would have read for the same routing — the
// MoE's floor, as the plan's floor bytes are a dense model's. Pure.
import type { RoutingResult } from '../worker-protocol.js';
import type { ExpertFigures } from './expert-figures.js';

export interface RoutingFigures {
  trace: string | null;
  recorded_to: string | null;
  replaced_selections: number;
  prompt_wraps: number;
  decode_wraps: number;
  dropped_ids: number;
  slots_per_layer: number | null;
  /** Whole run: what the optimum and LRU (as the runtime evicts, without read-ahead) would have read. */
  optimal_read_bytes: number | null;
  lru_read_bytes: number | null;
  /** The expert cache's reads (experts.read_bytes) ÷ the optimum's; null without both. */
  read_over_optimal: number | null;
  optimal_decode_bytes_per_token: number | null;
  note: string;
}

export function routingFigures(r: RoutingResult | undefined, experts: ExpertFigures | null | undefined): RoutingFigures | null {
  if (!r) return null;
  const o = r.optimum;
  const notes: string[] = [];
  if (r.trace) notes.push(`routing replayed from the trace (${r.replacedSelections} token × layer selections)`);
  if (r.promptWraps + r.decodeWraps > 0) notes.push(`the run outlasted the trace: its prompt steps started over ${r.promptWraps}×, its decode steps ${r.decodeWraps}×`);
  if (r.droppedIds > 0) notes.push(`${r.droppedIds} routed experts past the recording's bound are not counted`);
  if (r.forgottenRequests > 0) notes.push(`the optimum covers the newest requests only (${r.forgottenRequests} older layer × micro-batch requests let go): the cache's reads then cover more than it`);
  if (!o) notes.push('no expert cache ran: nothing to set against the optimum');
  const read = experts?.read_bytes;
  // Both must cover the same run: not once older requests were let go.
  const ratio = o && read !== undefined && o.optimalReadBytes > 0 && r.forgottenRequests === 0 ? read / o.optimalReadBytes : null;
  if (o && o.optimalReadBytes === 0) notes.push('the optimum reads nothing (every expert fits the cache)');
  return {
    trace: r.trace,
    recorded_to: r.recordedTo,
    replaced_selections: r.replacedSelections,
    prompt_wraps: r.promptWraps,
    decode_wraps: r.decodeWraps,
    dropped_ids: r.droppedIds,
    slots_per_layer: o?.slotsPerLayer ?? null,
    optimal_read_bytes: o?.optimalReadBytes ?? null,
    lru_read_bytes: o?.lruReadBytes ?? null,
    read_over_optimal: ratio,
    optimal_decode_bytes_per_token: o && o.decodeSteps > 0 ? o.optimalDecodeReadBytes / o.decodeSteps : null,
    note: notes.join('; '),
  };
}
