// Layers × time heatmap of resident fractions (mincore), one column per sample, with each
// layer's tier marked in a strip on the left. Drawn on a canvas: recharts has no heatmap.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ResidencySample } from '../../../src-main/shared/residency-types.js';
import { rampRgb, TIER_COLOR, UNKNOWN_CELL } from '../../lib/colors.js';
import type { DashboardLayer } from '../../lib/dashboard-model.js';
import { formatBytes, formatPct } from '../../lib/format.js';
import { heatmapGrid } from '../../lib/series.js';
import { Empty } from '../Empty.js';
import { TierLegend } from '../TierTag.js';

interface Props {
  layers: DashboardLayer[];
  samples: ResidencySample[];
  small?: boolean;
  maxCols?: number;
  testId?: string;
}

export function ResidencyHeatmap({ layers, samples, small = false, maxCols = 480, testId = 'residency-heatmap' }: Props) {
  const bytes = useMemo(() => layers.map((l) => l.bytes), [layers]);
  const grid = useMemo(() => heatmapGrid(bytes, samples, maxCols), [bytes, samples, maxCols]);
  const canvas = useRef<HTMLCanvasElement>(null);
  const strip = useRef<HTMLCanvasElement>(null);
  const [hover, setHover] = useState<string | null>(null);

  useEffect(() => {
    const c = canvas.current;
    if (!c || grid.cols === 0 || grid.rows === 0) return;
    c.width = grid.cols;
    c.height = grid.rows;
    const ctx = c.getContext('2d');
    if (!ctx) return;
    const img = ctx.createImageData(grid.cols, grid.rows);
    for (let i = 0; i < grid.cells.length; i++) {
      const [r, g, b] = rampRgb(grid.cells[i]!);
      img.data.set([r, g, b, 255], i * 4);
    }
    ctx.putImageData(img, 0, 0);
  }, [grid]);

  useEffect(() => {
    const c = strip.current;
    if (!c || grid.rows === 0) return;
    c.width = 1;
    c.height = grid.rows;
    const ctx = c.getContext('2d');
    if (!ctx) return;
    for (let r = 0; r < grid.rows; r++) {
      const tier = layers[r]?.tier;
      ctx.fillStyle = tier ? TIER_COLOR[tier] : UNKNOWN_CELL;
      ctx.fillRect(0, r, 1, 1);
    }
  }, [grid.rows, layers]);

  const onMove = (e: React.MouseEvent<HTMLCanvasElement>) => {
    const box = e.currentTarget.getBoundingClientRect();
    const col = Math.min(grid.cols - 1, Math.floor(((e.clientX - box.left) / box.width) * grid.cols));
    const row = Math.min(grid.rows - 1, Math.floor(((e.clientY - box.top) / box.height) * grid.rows));
    const f = grid.cells[row * grid.cols + col];
    const l = layers[row];
    setHover(`layer ${row}${l?.tier ? ` (${l.tier})` : ''} · t=${((grid.tMs[col] ?? 0) / 1000).toFixed(2)} s · ${Number.isFinite(f) ? `${formatPct(f)} of ${formatBytes(l?.bytes)} resident` : 'unknown'}`);
  };

  const empty = grid.cols === 0 || grid.rows === 0;
  const ticks = grid.rows > 1 ? [0, Math.floor((grid.rows - 1) / 2), grid.rows - 1] : [0];
  return (
    <div data-testid={testId} data-samples={String(samples.length)} data-vram-layers={String(layers.filter((l) => l.tier === 'vram').length)}>
      {empty ? (
        <Empty text="No residency samples yet — load a model and generate, or open a report." />
      ) : (
        <>
          <div className={`heatmap-box${small ? ' small' : ''} heatmap-wrap`}>
            <div className="heatmap-labels">
              {ticks.map((r) => (
                <span key={r} style={{ top: `${((r + 0.5) / grid.rows) * 100}%` }}>
                  L{r}
                </span>
              ))}
            </div>
            <canvas ref={strip} className="heatmap-tiers" title="tier of each layer" />
            <canvas ref={canvas} onMouseMove={onMove} onMouseLeave={() => setHover(null)} />
          </div>
          <div className="heatmap-axis">
            <span>{((grid.tMs[0] ?? 0) / 1000).toFixed(1)} s</span>
            <span className="dim">{hover ?? `${samples.length} samples × ${grid.rows} layers`}</span>
            <span>{((grid.tMs[grid.tMs.length - 1] ?? 0) / 1000).toFixed(1)} s</span>
          </div>
          {!small && (
            <div className="row">
              <TierLegend remote={layers.some((l) => l.tier === 'remote')} />
              <span className="grow" />
              <span className="legend">
                resident 0%<span className="ramp" />100%
              </span>
            </div>
          )}
        </>
      )}
    </div>
  );
}
