// The residency view's fixed part for a loaded model: where the stream schedule and the expert
// cache the worker runs put each layer's and each other tensor's bytes.
import type { NativeExpertConfig } from '../native/addon.js';
import type { Inventory } from '../shared/residency/inventory.js';
import { residencyRowSpecs, type ResidencyRowSpec } from '../shared/residency/residency-model.js';
import type { StreamLayout } from '../shared/residency/stream-units.js';
import type { Tier } from '../shared/residency-types.js';

export function rowSpecsOf(inventory: Inventory, tiers: readonly Tier[], layout: StreamLayout | null, experts: NativeExpertConfig | null, expertCount: number | null): ResidencyRowSpec[] {
  return residencyRowSpecs({
    inventory,
    tiers,
    locked: new Set(layout?.lockedTensors ?? []),
    streamed: new Set(layout?.units.flatMap((u) => u.tensors.map((t) => t.name)) ?? []),
    expertCache: experts && expertCount !== null ? { tensors: new Set(experts.tensors.map((t) => t.name)), experts: expertCount } : null,
  });
}
