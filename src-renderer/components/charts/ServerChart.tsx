// The API server's throughput over time: aggregate tok/s (left axis) and tokens per weight pass
// (right axis: how many sequences each streamed byte served).
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { ServerPoint } from '../../lib/server-model.js';
import { ChartBox } from './ChartBox.js';

export function ServerChart({ points = [] }: { points?: ServerPoint[] }) {
  return (
    <div data-testid="server-chart" data-points={points.length}>
      <ChartBox short empty={points.length === 0 ? 'No server statistics yet: they arrive about once a second while the API server runs.' : null}>
        <LineChart data={points} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="2 4" />
          <XAxis dataKey="tS" type="number" domain={['dataMin', 'dataMax']} tickFormatter={(v: number) => `${v < 10 ? v.toFixed(1) : v.toFixed(0)}s`} />
          <YAxis yAxisId="toks" width={44} />
          <YAxis yAxisId="pass" orientation="right" width={32} allowDecimals={false} />
          <Tooltip labelFormatter={(v) => `${Number(v).toFixed(0)} s`} formatter={(v) => (v === null || v === undefined ? '—' : Number(v).toFixed(2))} />
          <Legend />
          <Line yAxisId="toks" type="monotone" dataKey="aggregateTokS" name="tok/s (all requests)" stroke="#58a6ff" dot={false} isAnimationActive={false} connectNulls={false} />
          <Line yAxisId="pass" type="stepAfter" dataKey="tokensPerPass" name="tokens / weight pass" stroke="#3fb950" dot={false} isAnimationActive={false} connectNulls={false} />
        </LineChart>
      </ChartBox>
    </div>
  );
}
