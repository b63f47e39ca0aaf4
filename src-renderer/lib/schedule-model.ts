// The streaming split the worker executed (StreamSchedule in src-main/shared/worker-protocol.ts):
// from the loaded model's info live, or from a report's residency.schedule. Read defensively:
// a missing figure is null, never 0.
import { bool, isObj, num, str } from './fields.js';

export interface ScheduleInfo {
  capBytes: number | null;
  nonWeightMeasuredBytes: number | null;
  nonWeightSource: string | null;
  nonWeightBudgetBytes: number | null;
  persistentResidentBytes: number | null;
  residentLayerBytes: number | null;
  streamedBytes: number | null;
  streamedTensors: number | null;
  units: number | null;
  windowBytes: number | null;
  readaheadBytes: number | null;
  headroomBytes: number | null;
  pinnedBytes: number | null;
  pinnedLockedBytes: number | null;
  lockError: string | null;
}

export function normalizeSchedule(raw: unknown): ScheduleInfo | null {
  if (!isObj(raw)) return null;
  return {
    capBytes: num(raw, 'capBytes'),
    nonWeightMeasuredBytes: num(raw, 'nonWeightMeasuredBytes'),
    nonWeightSource: str(raw, 'nonWeightSource'),
    nonWeightBudgetBytes: num(raw, 'nonWeightBudgetBytes'),
    persistentResidentBytes: num(raw, 'persistentResidentBytes'),
    residentLayerBytes: num(raw, 'residentLayerBytes'),
    streamedBytes: num(raw, 'streamedBytes'),
    streamedTensors: num(raw, 'streamedTensors'),
    units: num(raw, 'units'),
    windowBytes: num(raw, 'windowBytes'),
    readaheadBytes: num(raw, 'readaheadBytes'),
    headroomBytes: num(raw, 'headroomBytes'),
    pinnedBytes: num(raw, 'pinnedBytes'),
    pinnedLockedBytes: num(raw, 'pinnedLockedBytes'),
    lockError: str(raw, 'lockError'),
  };
}

/** The engine's counters worth showing beside the schedule (report only: live samples carry none). */
export interface StreamCounters {
  directIo: boolean | null;
  stalls: number | null;
  late: number | null;
  readErrors: number | null;
}

export function streamCounters(counters: unknown): StreamCounters | null {
  if (!isObj(counters)) return null;
  return {
    directIo: bool(counters, 'directIo'),
    stalls: num(counters, 'stalls'),
    late: num(counters, 'late'),
    readErrors: num(counters, 'readErrors'),
  };
}
