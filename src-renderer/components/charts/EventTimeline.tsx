// Eviction/prefetch timeline: one lane per event kind (prefetches, drops, late arrivals,
// stalls, releases), marks at their time, width = duration where known.
import { useMemo } from 'react';
import type { ResidencyEvent, ResidencyEventKind } from '../../../src-main/shared/residency-types.js';
import { EVENT_COLOR } from '../../lib/colors.js';
import { formatBytes, formatMs } from '../../lib/format.js';
import { eventCounts, pickColumns } from '../../lib/series.js';
import { Empty } from '../Empty.js';

const LANES: ResidencyEventKind[] = ['prefetch', 'drop', 'late', 'stall', 'release'];
const W = 1000;
const LANE_H = 16;
const LEFT = 92;

export function EventTimeline({ events, maxMarks = 3000 }: { events: ResidencyEvent[]; maxMarks?: number }) {
  const counts = useMemo(() => eventCounts(events), [events]);
  const drawn = useMemo(() => pickColumns(events.length, maxMarks).map((i) => events[i]!), [events, maxMarks]);
  if (events.length === 0) {
    return (
      <div data-testid="event-timeline" data-events="0">
        <Empty text="No prefetch/drop events yet (policies other than stream record none)." />
      </div>
    );
  }
  const t0 = events[0]!.tMs;
  const t1 = Math.max(t0 + 1, ...events.map((e) => e.tMs + (e.durMs ?? 0)));
  const x = (t: number) => LEFT + ((t - t0) / (t1 - t0)) * (W - LEFT - 4);
  const H = LANES.length * LANE_H + 14;
  return (
    <div data-testid="event-timeline" data-events={String(events.length)}>
      <svg className="timeline-svg" viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" height={H}>
        {LANES.map((k, i) => (
          <g key={k}>
            <rect x={LEFT} y={i * LANE_H + 2} width={W - LEFT - 4} height={LANE_H - 4} fill="#10151e" />
            <text x={4} y={i * LANE_H + 12}>
              {k} {counts[k]}
            </text>
          </g>
        ))}
        {drawn.map((e, i) => {
          const lane = LANES.indexOf(e.kind);
          const w = Math.max(1.5, e.durMs ? x(e.tMs + e.durMs) - x(e.tMs) : 1.5);
          return (
            <rect key={i} x={x(e.tMs)} y={lane * LANE_H + 3} width={w} height={LANE_H - 6} fill={EVENT_COLOR[e.kind]} opacity={0.85}>
              <title>{`${e.kind} layer ${e.layer} · ${formatBytes(e.bytes)} at ${formatMs(e.tMs)}${e.durMs ? ` for ${formatMs(e.durMs)}` : ''}`}</title>
            </rect>
          );
        })}
        <text x={LEFT} y={H - 2}>
          {formatMs(t0)}
        </text>
        <text x={W - 4} y={H - 2} textAnchor="end">
          {formatMs(t1)}
        </text>
      </svg>
    </div>
  );
}
