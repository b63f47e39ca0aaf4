// Bytes read from storage per decoded token, against the floor (weights − (cap − non-weight
// memory): no schedule reads less) and the planner's prediction.
import { CartesianGrid, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import type { BytesPerTokenPoint } from '../../lib/series.js';
import type { Fig } from '../../lib/stream-figures.js';
import { readOverFloor } from '../../lib/stream-figures.js';
import { formatBytes, formatBytesAxis, formatBytesPerTok } from '../../lib/format.js';
import { ChartBox } from './ChartBox.js';

interface Props {
  points: BytesPerTokenPoint[];
  floor: Fig;
  predicted?: number | null;
}

export function BytesPerTokenChart({ points, floor, predicted = null }: Props) {
  const mean = points.length ? points.reduce((a, p) => a + p.bytes, 0) / points.length : null;
  const ratio = readOverFloor(mean, floor.value);
  return (
    <div data-testid="bytes-per-token-chart">
      <div className="row wrap legend">
        <span>measured {formatBytesPerTok(mean)}</span>
        <span title={floor.note ?? undefined}>floor {formatBytesPerTok(floor.value)}</span>
        {ratio !== null && <span>{ratio.toFixed(2)}× the floor</span>}
        {predicted !== null && <span>planned {formatBytesPerTok(predicted)}</span>}
      </div>
      <ChartBox short empty={points.length === 0 ? 'No per-token reads yet (needs decode samples with read bytes).' : null}>
        <LineChart data={points} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="2 4" />
          <XAxis dataKey="token" type="number" domain={['dataMin', 'dataMax']} />
          <YAxis width={62} tickFormatter={formatBytesAxis} domain={[0, (max: number) => Math.max(max, floor.value ?? 0, predicted ?? 0) * 1.1]} />
          <Tooltip formatter={(v) => formatBytes(Number(v))} labelFormatter={(v) => `token ${String(v)}`} />
          {floor.value !== null && <ReferenceLine y={floor.value} stroke="#3fb950" strokeDasharray="5 3" />}
          {predicted !== null && <ReferenceLine y={predicted} stroke="#a371f7" strokeDasharray="2 3" />}
          <Line type="monotone" dataKey="bytes" name="read/token" stroke="#d29922" dot={false} isAnimationActive={false} />
        </LineChart>
      </ChartBox>
    </div>
  );
}
