// A mixture of experts' layer × expert grid: how often each expert was routed to (the ramp,
// against its layer's busiest expert) and which experts the cache holds now (a bright mark).
// Drawn on a canvas, like the residency heatmap.
import { useEffect, useRef, useState } from 'react';
import type { ExpertGrid } from '../../lib/expert-model.js';
import { rampRgb } from '../../lib/colors.js';
import { formatPct } from '../../lib/format.js';
import { Empty } from '../Empty.js';

export function ExpertHeatmap({ grid }: { grid: ExpertGrid | null }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [hover, setHover] = useState<string | null>(null);
  useEffect(() => {
    const c = canvas.current;
    if (!c || !grid) return;
    // Two pixels a cell: the use colour, with a white centre where a slot holds the expert.
    const W = grid.experts * 2;
    const H = grid.layers.length * 2;
    c.width = W;
    c.height = H;
    const ctx = c.getContext('2d');
    if (!ctx) return;
    const img = ctx.createImageData(W, H);
    for (let r = 0; r < grid.layers.length; r++)
      for (let e = 0; e < grid.experts; e++) {
        const i = r * grid.experts + e;
        const [R, G, B] = rampRgb(grid.use[i] ?? 0);
        for (const [dx, dy] of [[0, 0], [1, 0], [0, 1], [1, 1]] as const) {
          const held = grid.resident[i] === 1 && dx === 1 && dy === 0;
          img.data.set(held ? [255, 255, 255, 255] : [R, G, B, 255], ((r * 2 + dy) * W + e * 2 + dx) * 4);
        }
      }
    ctx.putImageData(img, 0, 0);
  }, [grid]);
  if (!grid) return <Empty text="No expert cache in this run: it is used for a mixture of experts under the stream policy with a RAM budget." />;
  const onMove = (ev: React.MouseEvent<HTMLCanvasElement>) => {
    const box = ev.currentTarget.getBoundingClientRect();
    const e = Math.min(grid.experts - 1, Math.floor(((ev.clientX - box.left) / box.width) * grid.experts));
    const r = Math.min(grid.layers.length - 1, Math.floor(((ev.clientY - box.top) / box.height) * grid.layers.length));
    const i = r * grid.experts + e;
    setHover(`layer ${grid.layers[r]} · expert ${e} · used ${formatPct(grid.use[i] ?? 0)} as often as the layer's busiest · ${grid.resident[i] ? 'cached' : 'not cached'}`);
  };
  const rows = grid.layers.length;
  const ticks = rows > 1 ? [0, Math.floor((rows - 1) / 2), rows - 1] : [0];
  return (
    <div data-testid="expert-heatmap" data-layers={String(rows)} data-experts={String(grid.experts)} data-resident={String(grid.residentCount)}>
      <div className="heatmap-box heatmap-wrap">
        <div className="heatmap-labels">
          {ticks.map((r) => (
            <span key={r} style={{ top: `${((r + 0.5) / rows) * 100}%` }}>
              L{grid.layers[r]}
            </span>
          ))}
        </div>
        <div className="heatmap-tiers" />
        <canvas ref={canvas} onMouseMove={onMove} onMouseLeave={() => setHover(null)} />
      </div>
      <div className="heatmap-axis">
        <span>expert 0</span>
        <span className="dim">{hover ?? `${grid.layers.length} layers × ${grid.experts} experts · ${grid.slotsPerLayer} cached per layer (white)`}</span>
        <span>expert {grid.experts - 1}</span>
      </div>
      <div className="row">
        <span className="grow" />
        <span className="legend">
          routed: rarely<span className="ramp" />most in its layer
        </span>
      </div>
    </div>
  );
}
