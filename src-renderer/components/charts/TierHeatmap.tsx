// Rows × time of where every copy of the weights is: one row per layer and one per tensor outside
// the layers (embeddings, head, norm), each cell drawn in the colour of the tier holding most of
// the row, as bright as the share held; the hover gives the bytes by tier. Canvas: recharts has no heatmap.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ResidencySample } from '../../../src-main/shared/residency-types.js';
import { HELD_TIERS, type ResidencyRowSpec } from '../../../src-main/shared/residency/residency-model.js';
import { HELD_COLOR, HELD_LABEL, heldRgb } from '../../lib/colors.js';
import { formatBytes } from '../../lib/format.js';
import { residencyView, type ResidencyCell } from '../../lib/residency-view.js';
import { Empty } from '../Empty.js';

interface Props {
  specs: ResidencyRowSpec[];
  samples: ResidencySample[];
  readsObserved: boolean;
  small?: boolean;
  maxCols?: number;
  testId?: string;
}

export function cellText(spec: ResidencyRowSpec, cell: ResidencyCell | undefined): string {
  if (!cell) return `${spec.name}: unknown`;
  const parts = HELD_TIERS.filter((t) => (cell.held[t] ?? 0) > 0).map((t) => `${HELD_LABEL[t]} ${formatBytes(cell.held[t])}`);
  return `${spec.name}${spec.tier ? ` (${spec.tier})` : ''} · ${parts.length ? parts.join(' · ') : 'nothing held'} of ${formatBytes(spec.bytes)}`;
}

export function TierHeatmap({ specs, samples, readsObserved, small = false, maxCols = 400, testId = 'residency-heatmap' }: Props) {
  const view = useMemo(() => residencyView(specs, samples, readsObserved, maxCols), [specs, samples, readsObserved, maxCols]);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [hover, setHover] = useState<string | null>(null);
  const rows = specs.length;

  useEffect(() => {
    const c = canvas.current;
    if (!c || view.cols === 0 || rows === 0) return;
    c.width = view.cols;
    c.height = rows;
    const ctx = c.getContext('2d');
    if (!ctx) return;
    const img = ctx.createImageData(view.cols, rows);
    view.cells.forEach((cell, i) => img.data.set([...heldRgb(cell.tier, cell.fraction), 255], i * 4));
    ctx.putImageData(img, 0, 0);
  }, [view, rows]);

  const onMove = (e: React.MouseEvent<HTMLCanvasElement>) => {
    const box = e.currentTarget.getBoundingClientRect();
    const col = Math.min(view.cols - 1, Math.floor(((e.clientX - box.left) / box.width) * view.cols));
    const row = Math.min(rows - 1, Math.floor(((e.clientY - box.top) / box.height) * rows));
    const spec = specs[row];
    if (spec) setHover(`${cellText(spec, view.cells[row * view.cols + col])} · t=${((view.tMs[col] ?? 0) / 1000).toFixed(2)} s`);
  };

  if (view.cols === 0 || rows === 0) {
    return (
      <div data-testid={testId} data-samples={String(samples.length)} data-rows={String(rows)}>
        <Empty text="No residency samples yet — load a model and generate, or open a report." />
      </div>
    );
  }
  const nLayers = specs.filter((s) => s.layer !== null).length;
  const labels = [0, Math.floor((nLayers - 1) / 2), nLayers - 1].filter((r, i, a) => r >= 0 && a.indexOf(r) === i).map((r) => ({ r, text: `L${r}` }));
  specs.forEach((s, r) => s.layer === null && labels.push({ r, text: s.key === 'token_embd' ? 'embd' : s.key === 'output' ? 'head' : s.key === 'output_norm' ? 'norm' : 'other' }));
  return (
    <div
      data-testid={testId}
      data-samples={String(samples.length)}
      data-rows={String(rows)}
      data-outside={specs.filter((s) => s.layer === null).map((s) => s.key).join(',')}
      data-tiers={view.tiersDrawn.join(',')}
      data-vram-layers={String(specs.filter((s) => s.tier === 'vram').length)}
    >
      <div className={`heatmap-box${small ? ' small' : ''} heatmap-wrap rows`}>
        <div className="heatmap-labels">
          {labels.map(({ r, text }) => (
            <span key={`${r}-${text}`} style={{ top: `${((r + 0.5) / rows) * 100}%` }}>
              {text}
            </span>
          ))}
        </div>
        <canvas ref={canvas} onMouseMove={onMove} onMouseLeave={() => setHover(null)} style={{ imageRendering: 'pixelated' }} />
      </div>
      <div className="heatmap-axis">
        <span>{((view.tMs[0] ?? 0) / 1000).toFixed(1)} s</span>
        <span className="dim" data-testid={`${testId}-hover`}>
          {hover ?? `${samples.length} samples × ${nLayers} layers + ${rows - nLayers} rows outside the layers`}
        </span>
        <span>{((view.tMs[view.tMs.length - 1] ?? 0) / 1000).toFixed(1)} s</span>
      </div>
      {!small && (
        <div className="row">
          <div className="legend" data-testid="held-legend">
            {HELD_TIERS.map((t) => (
              <span key={t} data-drawn={String(view.tiersDrawn.includes(t))}>
                <span className="sw" style={{ background: HELD_COLOR[t] }} />
                {HELD_LABEL[t]}
              </span>
            ))}
          </div>
          <span className="grow" />
          <span className="legend">brighter: more of the row held</span>
        </div>
      )}
    </div>
  );
}
