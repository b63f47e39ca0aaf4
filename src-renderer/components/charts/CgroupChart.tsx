// cgroup memory usage against the cap, with limit hits and the OOM state.
import { Area, AreaChart, CartesianGrid, Line, Tooltip, XAxis, YAxis } from 'recharts';
import type { CgroupInfo } from '../../lib/report-model.js';
import type { CgroupPoint } from '../../lib/series.js';
import { formatBytes, formatBytesAxis } from '../../lib/format.js';
import { ChartBox } from './ChartBox.js';

interface Props {
  points: CgroupPoint[];
  info: CgroupInfo | null;
  oom?: boolean;
}

export function CgroupChart({ points, info, oom = false }: Props) {
  const limit = info?.limitBytes ?? points.find((p) => p.limit !== null)?.limit ?? null;
  return (
    <div data-testid="cgroup-chart" data-oom={String(oom)} data-limit={limit === null ? '' : String(limit)}>
      <div className="row wrap legend">
        <span>cap {formatBytes(limit)}</span>
        {info && <span>peak {formatBytes(info.peakBytes)}</span>}
        {info && <span>limit hits {info.limitHits ?? '—'}</span>}
        {oom || (info?.oomKills ?? 0) > 0 ? <span className="badge bad">OOM killed</span> : limit !== null ? <span className="badge ok">no OOM</span> : null}
      </div>
      <ChartBox short empty={points.length > 0 ? null : limit === null ? 'Not capped: enable "enforce cap" with a RAM budget to run in a cgroup.' : 'No cgroup samples in this run.'}>
        <AreaChart data={points} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="2 4" />
          <XAxis dataKey="tS" type="number" domain={['dataMin', 'dataMax']} tickFormatter={(v: number) => `${v.toFixed(0)}s`} />
          <YAxis width={62} tickFormatter={formatBytesAxis} domain={[0, (max: number) => Math.max(max, limit ?? 0) * 1.05]} />
          <Tooltip formatter={(v) => formatBytes(Number(v))} labelFormatter={(v) => `${Number(v).toFixed(2)} s`} />
          <Area type="stepAfter" dataKey="usage" name="usage" stroke="#58a6ff" fill="#58a6ff" fillOpacity={0.18} isAnimationActive={false} />
          <Line type="stepAfter" dataKey="limit" name="cap" stroke="#f85149" strokeDasharray="5 3" dot={false} isAnimationActive={false} />
        </AreaChart>
      </ChartBox>
    </div>
  );
}
