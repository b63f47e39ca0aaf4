// Pure: the residency rows (shared/residency/residency-model) as the report keeps them, and back:
// the report's layers and rows outside the layers carry each row's placement and its bytes by
// tier at the run's end, so a saved report redraws the same view the live run drew.
import { heldTotal, mainTierOf, type HeldBytes, type HeldTier, type ResidencyRow, type ResidencyRowSpec } from '../residency/residency-model.js';

export interface ReportPlacement {
  vram_bytes: number;
  remote: { endpoint: string; bytes: number }[];
  locked_bytes: number;
  streamed_bytes: number;
  expert_bytes: number;
}

/** What a report row adds to a layer: where its bytes were placed and every copy held at the run's end. */
export interface ReportHeldFigures {
  placement: ReportPlacement;
  held: HeldBytes;
  held_bytes: number;
  main_tier: HeldTier | null;
  read_bytes_per_token: number | null;
}

export interface ReportOutsideRow extends ReportHeldFigures {
  key: string;
  name: string;
  bytes: number;
}

export function heldFigures(r: ResidencyRow): ReportHeldFigures {
  return {
    placement: { vram_bytes: r.vramBytes, remote: r.remote, locked_bytes: r.lockedBytes, streamed_bytes: r.streamedBytes, expert_bytes: r.expertBytes },
    held: r.held,
    held_bytes: r.heldBytes,
    main_tier: r.mainTier,
    read_bytes_per_token: r.readBytesPerToken,
  };
}

type ReportLayerLike = { index: number; bytes: number; tier: ResidencyRowSpec['tier'] } & Partial<ReportHeldFigures>;

/** The rows' fixed part back from a report (null: the report predates the rows). */
export function specsFromReport(layers: readonly ReportLayerLike[], outside: readonly ReportOutsideRow[] | undefined): ResidencyRowSpec[] | null {
  if (!outside || layers.some((l) => !l.placement)) return null;
  const spec = (key: string, name: string, layer: number | null, bytes: number, tier: ResidencyRowSpec['tier'], p: ReportPlacement): ResidencyRowSpec => ({
    key,
    name,
    layer,
    bytes,
    tier,
    vramBytes: p.vram_bytes,
    remote: p.remote,
    lockedBytes: p.locked_bytes,
    streamedBytes: p.streamed_bytes,
    expertBytes: p.expert_bytes,
  });
  return [
    ...layers.map((l) => spec(`blk.${l.index}`, `layer ${l.index}`, l.index, l.bytes, l.tier, l.placement as ReportPlacement)),
    ...outside.map((o) => spec(o.key, o.name, null, o.bytes, null, o.placement)),
  ];
}

/** A report row's figures as the model's row (what the text report and the layer table print). */
export function rowFromReport(spec: ResidencyRowSpec, f: Pick<ReportHeldFigures, 'held' | 'read_bytes_per_token'>): ResidencyRow {
  return { ...spec, held: f.held, heldBytes: heldTotal(f.held), mainTier: mainTierOf(f.held), readBytesPerToken: f.read_bytes_per_token };
}
