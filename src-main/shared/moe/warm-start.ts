// Which experts the expert cache reads at setup, so that decode does not start from an empty
// cache: per MoE layer, the experts earlier runs of the same model file were routed to most
// (routing.json), as many as the layer's slots. Real routers send most tokens to a few experts
// of each layer, and the same ones from one prompt to the next; a record of another shape (other
// experts, or another number used per token) says nothing of this run and is not used. Pure.
import type { RoutingRecord } from './measured-routing.js';

export interface WarmLayer {
  layer: number;
  /** Most used first; only experts some earlier run was routed to. */
  experts: number[];
}

export function warmExperts(record: RoutingRecord | null, shape: { experts: number; used: number }, slotsPerLayer: number): WarmLayer[] {
  if (!record || record.experts !== shape.experts || record.used !== shape.used || slotsPerLayer < 1) return [];
  return record.layers
    .map((l) => ({
      layer: l.layer,
      experts: l.uses
        .map((u, e) => [u, e] as const)
        .filter(([u, e]) => u > 0 && e < shape.experts)
        .sort((a, b) => b[0] - a[0] || a[1] - b[1])
        .slice(0, slotsPerLayer)
        .map(([, e]) => e),
    }))
    .filter((l) => l.experts.length > 0);
}
