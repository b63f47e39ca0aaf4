// Decode tokens/s over time.
import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import { formatTokS } from '../../lib/format.js';
import { ChartBox } from './ChartBox.js';

export function TokSChart({ points }: { points: { tS: number; tokS: number }[] }) {
  const last = points.length ? points[points.length - 1]!.tokS : null;
  return (
    <div data-testid="tokps-chart">
      <div className="row legend">
        <span>latest {formatTokS(last)}</span>
      </div>
      <ChartBox short empty={points.length === 0 ? 'No decode speed samples yet.' : null}>
        <LineChart data={points} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="2 4" />
          <XAxis dataKey="tS" type="number" domain={['dataMin', 'dataMax']} tickFormatter={(v: number) => `${v.toFixed(0)}s`} />
          <YAxis width={44} />
          <Tooltip formatter={(v) => formatTokS(Number(v))} labelFormatter={(v) => `${Number(v).toFixed(2)} s`} />
          <Line type="monotone" dataKey="tokS" name="tok/s" stroke="#58a6ff" dot={false} isAnimationActive={false} />
        </LineChart>
      </ChartBox>
    </div>
  );
}
