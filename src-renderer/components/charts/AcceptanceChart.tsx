// Speculative decoding per verify pass: the share of drafted tokens the model kept (each pass
// and over the last passes, left axis) and the tokens each pass yielded (right axis).
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import { formatPct } from '../../lib/format.js';
import { ROLLING_PASSES, type PassPoint } from '../../lib/speculative-model.js';
import { ChartBox } from './ChartBox.js';

export function AcceptanceChart({ points = [] }: { points?: PassPoint[] }) {
  return (
    <div data-testid="speculative-chart" data-points={points.length}>
      <ChartBox empty={points.length === 0 ? 'No verify passes yet: generate with the draft loaded.' : null}>
        <LineChart data={points} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="2 4" />
          <XAxis dataKey="pass" type="number" domain={['dataMin', 'dataMax']} allowDecimals={false} />
          <YAxis yAxisId="rate" width={44} domain={[0, 1]} tickFormatter={(v: number) => formatPct(v)} />
          <YAxis yAxisId="tokens" orientation="right" width={32} allowDecimals={false} />
          <Tooltip
            labelFormatter={(v) => `pass ${Number(v)}`}
            formatter={(v, name) => (v === null || v === undefined ? '—' : name === 'tokens / pass' ? String(v) : formatPct(Number(v)))}
          />
          <Legend />
          <Line yAxisId="rate" type="linear" dataKey="acceptance" name="accepted / drafted" stroke="#8b949e" strokeWidth={1} dot={false} isAnimationActive={false} connectNulls={false} />
          <Line yAxisId="rate" type="monotone" dataKey="rolling" name={`last ${ROLLING_PASSES} passes`} stroke="#58a6ff" strokeWidth={2} dot={false} isAnimationActive={false} connectNulls />
          <Line yAxisId="tokens" type="stepAfter" dataKey="tokens" name="tokens / pass" stroke="#3fb950" dot={false} isAnimationActive={false} />
        </LineChart>
      </ChartBox>
    </div>
  );
}
