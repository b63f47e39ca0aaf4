// Of the experts routed between two samples: the share already cached, and the share ready in
// time (cached, or read ahead on the next-layer prediction).
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { ExpertHitPoint } from '../../lib/expert-model.js';
import { formatPct } from '../../lib/format.js';
import { ChartBox } from './ChartBox.js';

export function ExpertHitChart({ points, predicted }: { points: ExpertHitPoint[]; predicted: number | null }) {
  return (
    <div data-testid="expert-hit-chart" data-points={String(points.length)}>
      <div className="row wrap legend">
        <span>latest cached {formatPct(points[points.length - 1]?.hit ?? null)}</span>
        <span>ready in time {formatPct(points[points.length - 1]?.ready ?? null)}</span>
        <span>predictions right {formatPct(predicted)}</span>
      </div>
      <ChartBox short empty={points.length === 0 ? 'No routed experts sampled yet.' : null}>
        <LineChart data={points} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="2 4" />
          <XAxis dataKey="tS" type="number" domain={['dataMin', 'dataMax']} tickFormatter={(v: number) => `${v.toFixed(1)}s`} />
          <YAxis width={44} domain={[0, 1]} tickFormatter={(v: number) => `${Math.round(v * 100)}%`} />
          <Tooltip formatter={(v) => formatPct(Number(v))} labelFormatter={(v) => `${Number(v).toFixed(2)} s`} />
          <Line type="stepAfter" dataKey="hit" name="cached" stroke="#3fb950" dot={false} isAnimationActive={false} />
          <Line type="stepAfter" dataKey="ready" name="ready in time" stroke="#58a6ff" dot={false} isAnimationActive={false} />
        </LineChart>
      </ChartBox>
    </div>
  );
}
