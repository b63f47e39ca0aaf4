// How resident the locked weights stayed during decode. The stream schedule locks every weight
// it does not stream; if the kernel still reclaims them, the schedule has turned back into LRU.
import { CartesianGrid, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import type { Fig } from '../../lib/stream-figures.js';
import type { FractionPoint } from '../../lib/stream-series.js';
import { formatBytes, formatPct } from '../../lib/format.js';
import { ChartBox } from './ChartBox.js';

/** The share below which locked weights count as evicted (the schedule's own bar: locked weights stay resident). */
export const PINNED_TARGET = 0.99;

interface Props {
  points: FractionPoint[];
  minimum: Fig;
  lockedBytes?: number | null;
}

export function PinnedResidencyChart({ points, minimum, lockedBytes = null }: Props) {
  const low = minimum.value !== null && minimum.value < PINNED_TARGET;
  return (
    <div data-testid="pinned-residency-chart" data-min={minimum.value === null ? '' : String(minimum.value)}>
      <div className="row wrap legend">
        <span title={minimum.note ?? undefined}>minimum {formatPct(minimum.value, 1)}</span>
        {lockedBytes !== null && <span>locked {formatBytes(lockedBytes)}</span>}
        {minimum.value !== null && <span className={low ? 'badge warn' : 'badge ok'}>{low ? `below ${formatPct(PINNED_TARGET)}` : `≥ ${formatPct(PINNED_TARGET)}`}</span>}
      </div>
      <ChartBox short empty={points.length === 0 ? (minimum.note ?? 'No locked weights: the stream schedule is not running.') : null}>
        <LineChart data={points} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="2 4" />
          <XAxis dataKey="tS" type="number" domain={['dataMin', 'dataMax']} tickFormatter={(v: number) => `${v.toFixed(0)}s`} />
          {/* Zoomed near 100 %: the interesting differences are fractions of a percent. */}
          <YAxis width={44} domain={[(min: number) => Math.max(0, Math.min(0.95, min - 0.01)), 1]} tickFormatter={(v: number) => formatPct(v)} />
          <Tooltip formatter={(v) => formatPct(Number(v), 2)} labelFormatter={(v) => `${Number(v).toFixed(2)} s`} />
          <ReferenceLine y={PINNED_TARGET} stroke="#d29922" strokeDasharray="5 3" />
          <Line type="stepAfter" dataKey="fraction" name="locked resident" stroke="#3fb950" dot={false} isAnimationActive={false} />
        </LineChart>
      </ChartBox>
    </div>
  );
}
