// Times decode hit the memory group's limit. Each hit is a reclaim on the fault path: a
// schedule that keeps its headroom shows (almost) none.
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { Fig } from '../../lib/stream-figures.js';
import type { HitsPoint } from '../../lib/stream-series.js';
import { formatCount } from '../../lib/format.js';
import { ChartBox } from './ChartBox.js';

interface Props {
  points: HitsPoint[];
  total: Fig;
}

export function LimitHitsChart({ points, total }: Props) {
  return (
    <div data-testid="limit-hits-chart" data-hits={total.value === null ? '' : String(total.value)}>
      <div className="row wrap legend">
        <span title={total.note ?? undefined}>during decode {formatCount(total.value)}</span>
      </div>
      <ChartBox short empty={points.length > 0 ? null : total.value !== null ? 'No per-sample limit counts in this run.' : (total.note ?? 'Not capped: limit hits are counted in a memory cgroup ("enforce cap").')}>
        <LineChart data={points} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="2 4" />
          <XAxis dataKey="tS" type="number" domain={['dataMin', 'dataMax']} tickFormatter={(v: number) => `${v.toFixed(0)}s`} />
          <YAxis width={52} allowDecimals={false} tickFormatter={(v: number) => formatCount(v)} />
          <Tooltip formatter={(v) => formatCount(Number(v))} labelFormatter={(v) => `${Number(v).toFixed(2)} s`} />
          <Line type="stepAfter" dataKey="hits" name="limit hits" stroke="#f85149" dot={false} isAnimationActive={false} />
        </LineChart>
      </ChartBox>
    </div>
  );
}
