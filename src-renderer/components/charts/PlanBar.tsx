// The plan as a stacked bar: one column per layer, height ∝ bytes, coloured by tier
// (VRAM / pinned RAM / streamed; a layer that streams some tensors shows both parts), with the
// totals per tier in the legend.
import type { PlanLayer } from '../../lib/plan-model.js';
import { layerSplit, tierTotals } from '../../lib/plan-model.js';
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
    <div data-testid="plan-bar" data-layers={String(layers.length)} data-vram-layers={String(layers.filter((l) => l.tier === 'vram').length)}>
      <svg className="plan-bar-svg" viewBox={`0 0 ${W} ${H + 14}`} preserveAspectRatio="none">
        {layers.map((l, i) => {
          const h = Math.max(2, (l.bytes / max) * H);
          const { resident, streamed } = layerSplit(l);
          // A layer that streams only some tensors: the streamed part on top, the locked rest below.
          const hs = l.bytes > 0 ? (h * streamed) / l.bytes : 0;
          const title = `layer ${l.index}: ${formatBytes(l.bytes)} · ${streamed > 0 && resident > 0 ? `${formatBytes(streamed)} streamed, ${formatBytes(resident)} locked` : l.tier}`;
          const x = i * w + gap / 2;
          const width = Math.max(0.5, w - gap);
          return (
            <g key={l.index} data-tier={l.tier}>
              <title>{title}</title>
              {h - hs > 0 && <rect x={x} y={H - h + hs} width={width} height={h - hs} fill={TIER_COLOR[l.tier === 'vram' || l.tier === 'remote' ? l.tier : 'pinned']} rx={1} />}
              {hs > 0 && <rect x={x} y={H - h} width={width} height={hs} fill={TIER_COLOR.streamed} rx={1} />}
            </g>
          );
        })}
        <text x={0} y={H + 12}>
          L0
        </text>
        <text x={W} y={H + 12} textAnchor="end">
          L{layers[layers.length - 1]!.index}
        </text>
      </svg>
      <TierLegend remote={totals.remote > 0} totals={{ vram: totals.vram ? formatBytes(totals.vram) : '', remote: totals.remote ? formatBytes(totals.remote) : '', pinned: totals.pinned ? formatBytes(totals.pinned) : '', streamed: totals.streamed ? formatBytes(totals.streamed) : '' }} />
    </div>
  );
}
