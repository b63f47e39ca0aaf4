// What the residency heatmap and table draw: the shared residency model's rows (every layer and
// every tensor outside the layers) over the samples, each cell the tier holding most of the row
// and how much of the row is held. Same function as the report's `residency.layers`.
import type { ResidencySample } from '../../src-main/shared/residency-types.js';
import { heldAt, heldTotal, mainTierOf, residencyRows, type HeldBytes, type HeldTier, type ResidencyRow, type ResidencyRowSpec } from '../../src-main/shared/residency/residency-model.js';
import { pickColumns } from './series.js';

export interface ResidencyCell {
  tier: HeldTier | null;
  /** Held bytes / the row's bytes, at most 1; NaN where the row has no bytes. */
  fraction: number;
  held: HeldBytes;
}

export interface ResidencyView {
  /** At the last sample: what the table prints and the report keeps. */
  rows: ResidencyRow[];
  /** Row-major [row * cols + col]. */
  cells: ResidencyCell[];
  cols: number;
  tMs: number[];
  /** Tiers some cell is drawn in. */
  tiersDrawn: HeldTier[];
}

export function residencyView(specs: readonly ResidencyRowSpec[], samples: readonly ResidencySample[], readsObserved: boolean, maxCols = 400): ResidencyView {
  const idx = pickColumns(samples.length, maxCols);
  const cells: ResidencyCell[] = new Array(specs.length * idx.length);
  const drawn = new Set<HeldTier>();
  specs.forEach((spec, r) => {
    idx.forEach((si, c) => {
      const held = heldAt(specs, spec, samples[si] ?? null);
      const tier = mainTierOf(held);
      if (tier) drawn.add(tier);
      cells[r * idx.length + c] = { tier, fraction: spec.bytes > 0 ? Math.min(1, heldTotal(held) / spec.bytes) : Number.NaN, held };
    });
  });
  return {
    rows: residencyRows(specs, samples, readsObserved),
    cells,
    cols: idx.length,
    tMs: idx.map((i) => samples[i]!.tMs),
    tiersDrawn: [...drawn],
  };
}
