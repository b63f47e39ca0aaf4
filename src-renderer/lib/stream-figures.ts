// The decode figures the dashboard and the comparison show: limit hits during decode, the
// locked weights' lowest residency, the read rate, the non-weight memory charged and the floor
// per token. A report states them itself; live, they come from the samples through the same
// functions the report builder uses, so a live view and the report it becomes agree.
import type { ResidencySample } from '../../src-main/shared/residency-types.js';
import { decodeReadRate, limitHitsDuringDecode, pinnedResidentMin } from '../../src-main/shared/report/decode-figures.js';
import { field, num, str } from './fields.js';

/** A figure and how it was found (or why it is unknown). */
export interface Fig {
  value: number | null;
  note: string | null;
}

export interface StreamFigures {
  limitHits: Fig;
  /** 0..1 */
  pinnedResidentMin: Fig;
  /** Storage bytes per second of decode. */
  readRate: Fig;
  nonWeight: Fig;
  floor: Fig;
}

export const UNKNOWN: Fig = { value: null, note: null };

export function figuresFromSamples(samples: readonly ResidencySample[]): Pick<StreamFigures, 'limitHits' | 'pinnedResidentMin' | 'readRate'> {
  return {
    limitHits: limitHitsDuringDecode(samples),
    pinnedResidentMin: pinnedResidentMin(samples),
    readRate: decodeReadRate(samples),
  };
}

/** The first figure that has a value; else the first that says why it has none. */
export function firstKnown(...figs: Fig[]): Fig {
  return figs.find((f) => f.value !== null) ?? figs.find((f) => f.note !== null) ?? UNKNOWN;
}

/** A figure the report states as `name` and `name_note`; absent (an older report): undefined. */
function stated(residency: unknown, name: string): Fig | undefined {
  if (field(residency, name) === undefined) return undefined;
  return { value: num(residency, name), note: str(residency, `${name}Note`) };
}

/**
 * The floor a report states. Reports written before the floor existed carried
 * `min_bytes_per_token` (weights minus the mean resident) in its place: it is shown as the
 * floor of such a report, with a note saying so.
 */
function statedFloor(residency: unknown): Fig {
  const floor = stated(residency, 'floorBytesPerToken');
  if (floor) return floor;
  const old = num(residency, 'minBytesPerToken');
  if (old === null) return { value: null, note: 'the report states no floor' };
  const formula = str(residency, 'minBytesPerTokenFormula');
  return { value: old, note: `older report: min_bytes_per_token${formula ? ` (${formula})` : ''}` };
}

/** A saved report's figures; where an older report lacks one, it is derived from its timeline. */
export function figuresFromReport(residency: unknown, timeline: readonly ResidencySample[]): StreamFigures {
  const derived = figuresFromSamples(timeline);
  return {
    limitHits: stated(residency, 'limitHitsDecode') ?? derived.limitHits,
    pinnedResidentMin: stated(residency, 'pinnedResidentMin') ?? derived.pinnedResidentMin,
    readRate: stated(residency, 'readRateBytesPerS') ?? derived.readRate,
    nonWeight: stated(residency, 'nonWeightBytes') ?? { value: null, note: 'the report states no non-weight figure' },
    floor: statedFloor(residency),
  };
}

/** Bytes read per token over the floor: 1 is the best any schedule can do. Null without a positive floor. */
export function readOverFloor(readPerToken: number | null, floor: number | null): number | null {
  if (readPerToken === null || floor === null || !(floor > 0)) return null;
  return readPerToken / floor;
}
