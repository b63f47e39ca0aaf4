// The streaming split the worker executed: how big the window is, what streams, what is
// locked, and the non-weight memory it measured against what the budget reserved for it.
import type { ScheduleInfo, StreamCounters } from '../../lib/schedule-model.js';
import { formatBytes, formatCount } from '../../lib/format.js';

interface Props {
  schedule: ScheduleInfo;
  counters?: StreamCounters | null;
}

function Row({ label, value, title }: { label: string; value: string; title?: string }) {
  return (
    <>
      <span className="dim" title={title}>
        {label}
      </span>
      <span className="v">{value}</span>
    </>
  );
}

function LockBadge({ s }: { s: ScheduleInfo }) {
  if (s.lockError) {
    return (
      <span className="badge bad" title={s.lockError} data-testid="stream-lock-error">
        lock failed
      </span>
    );
  }
  if (s.pinnedLockedBytes === null || s.pinnedBytes === null) return null;
  return s.pinnedLockedBytes < s.pinnedBytes ? <span className="badge warn">partly locked</span> : <span className="badge ok">locked</span>;
}

export function SchedulePanel({ schedule: s, counters = null }: Props) {
  const locked = s.pinnedLockedBytes !== null && s.pinnedBytes !== null ? `${formatBytes(s.pinnedLockedBytes)} of ${formatBytes(s.pinnedBytes)}` : formatBytes(s.pinnedBytes);
  const overBudget = s.nonWeightMeasuredBytes !== null && s.nonWeightBudgetBytes !== null && s.nonWeightMeasuredBytes > s.nonWeightBudgetBytes;
  return (
    <div className="panel" data-testid="stream-schedule">
      <h4>
        Stream schedule<span className="spacer" />
        {counters?.directIo !== null && counters?.directIo !== undefined && <span className="badge">{counters.directIo ? 'direct I/O' : 'buffered I/O'}</span>}
        <LockBadge s={s} />
      </h4>
      <div className="kv two">
        <Row label="window" value={formatBytes(s.windowBytes)} title="anonymous slots the streamed tensors are read into" />
        <Row label="streamed" value={`${formatCount(s.streamedTensors)} tensors · ${formatBytes(s.streamedBytes)}`} title={s.units !== null ? `${s.units} read units` : undefined} />
        <Row label="locked" value={locked} title="weights held resident with mlock" />
        <Row label="resident layers" value={formatBytes(s.residentLayerBytes)} />
        <Row label="non-weight measured" value={formatBytes(s.nonWeightMeasuredBytes)} title={s.nonWeightSource ?? undefined} />
        <Row label="non-weight budget" value={formatBytes(s.nonWeightBudgetBytes)} title="measured + compute reserve + growth" />
        <Row label="headroom" value={formatBytes(s.headroomBytes)} title="kept free so the kernel does not reclaim during decode" />
        <Row label="cap" value={formatBytes(s.capBytes)} />
        {counters && <Row label="stalls / late" value={`${formatCount(counters.stalls)} / ${formatCount(counters.late)}`} />}
        {counters && <Row label="read errors" value={formatCount(counters.readErrors)} />}
      </div>
      {overBudget && <div className="err-text">Non-weight memory measured above its budget: the schedule may run against the cap.</div>}
      {s.lockError && <div className="err-text">Locking weights failed: {s.lockError}</div>}
    </div>
  );
}
