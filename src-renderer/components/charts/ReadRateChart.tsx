// Storage read rate during decode, against the rate the plan assumed the device reads at.
import { CartesianGrid, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import type { Fig } from '../../lib/stream-figures.js';
import type { RatePoint } from '../../lib/stream-series.js';
import { formatBytesAxis, formatRate } from '../../lib/format.js';
import { ChartBox } from './ChartBox.js';

interface Props {
  points: RatePoint[];
  /** Over the whole decode (first to last decode sample). */
  mean: Fig;
  device?: number | null;
}

export function ReadRateChart({ points, mean, device = null }: Props) {
  return (
    <div data-testid="read-rate-chart">
      <div className="row wrap legend">
        <span title={mean.note ?? undefined}>decode mean {formatRate(mean.value)}</span>
        {device !== null && <span>device (planned) {formatRate(device)}</span>}
      </div>
      <ChartBox short empty={points.length === 0 ? 'No read rate yet (needs decode samples with read bytes).' : null}>
        <LineChart data={points} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="2 4" />
          <XAxis dataKey="tS" type="number" domain={['dataMin', 'dataMax']} tickFormatter={(v: number) => `${v.toFixed(0)}s`} />
          <YAxis width={62} tickFormatter={(v: number) => `${formatBytesAxis(v)}/s`} domain={[0, (max: number) => Math.max(max, device ?? 0) * 1.1]} />
          <Tooltip formatter={(v) => formatRate(Number(v))} labelFormatter={(v) => `${Number(v).toFixed(2)} s`} />
          {device !== null && <ReferenceLine y={device} stroke="#a371f7" strokeDasharray="2 3" />}
          <Line type="monotone" dataKey="bytesPerS" name="read rate" stroke="#58a6ff" dot={false} isAnimationActive={false} />
        </LineChart>
      </ChartBox>
    </div>
  );
}
