// The plan as a stacked bar: one column per layer, height ∝ bytes, coloured by tier
// (VRAM / pinned RAM / streamed), with the totals per tier in the legend.
import type { PlanLayer } from '../../lib/plan-model.js';
import { tierTotals } from '../../lib/plan-model.js';
import { TIER_COLOR } from '../../lib/colors.js';
import { formatBytes } from '../../lib/format.js';
import { Empty } from '../Empty.js';
import { TierLegend } from '../TierTag.js';

const W = 1000;
const H = 110;

export function PlanBar({ layers }: { layers: PlanLayer[] }) {
  if (layers.length === 0) {
    return (
      <div data-testid="plan-bar" data-layers="0">
        <Empty text="No plan yet." />
      </div>
    );
  }
  const max = Math.max(1, ...layers.map((l) => l.bytes));
  const gap = layers.length > 80 ? 0 : 1.5;
  const w = W / layers.length;
  const totals = tierTotals(layers);
  return (
    <div data-testid="plan-bar" data-layers={String(layers.length)}>
      <svg className="plan-bar-svg" viewBox={`0 0 ${W} ${H + 14}`} preserveAspectRatio="none">
        {layers.map((l, i) => {
          const h = Math.max(2, (l.bytes / max) * H);
          return (
            <rect key={l.index} data-tier={l.tier} x={i * w + gap / 2} y={H - h} width={Math.max(0.5, w - gap)} height={h} fill={TIER_COLOR[l.tier]} rx={1}>
              <title>{`layer ${l.index}: ${formatBytes(l.bytes)} · ${l.tier}`}</title>
            </rect>
          );
        })}
        <text x={0} y={H + 12}>
          L0
        </text>
        <text x={W} y={H + 12} textAnchor="end">
          L{layers[layers.length - 1]!.index}
        </text>
      </svg>
      <TierLegend totals={{ vram: totals.vram ? formatBytes(totals.vram) : '', pinned: totals.pinned ? formatBytes(totals.pinned) : '', streamed: totals.streamed ? formatBytes(totals.streamed) : '' }} />
    </div>
  );
}
