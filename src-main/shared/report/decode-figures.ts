// Pure: what a capped run's decode phase looked like, from the worker's samples — limit hits,
// how resident the locked weights stayed, the read rate, and the floor no schedule can beat.
import type { ResidencySample } from '../residency-types.js';

export interface Figure {
  value: number | null;
  /** How it was computed, or why it is unknown. */
  note: string;
}

export interface DecodeFigures {
  limitHits: Figure;
  pinnedResidentMin: Figure;
  nonWeightBytes: Figure;
  floorBytesPerToken: Figure;
  readRate: Figure;
}

const decodeSamples = (samples: readonly ResidencySample[]) => samples.filter((s) => s.phase === 'decode');

/** Times the memory group's limit was hit between the first and the last decode sample. */
export function limitHitsDuringDecode(samples: readonly ResidencySample[]): Figure {
  const d = decodeSamples(samples).filter((s) => s.limitHits !== null);
  if (d.length < 2) return { value: null, note: 'not capped, or fewer than two decode samples' };
  const a = d[0] as ResidencySample;
  const b = d[d.length - 1] as ResidencySample;
  return { value: (b.limitHits as number) - (a.limitHits as number), note: `limit hits from token ${a.token} to token ${b.token} (${d.length} samples)` };
}

/** The lowest share of the locked weights found resident in any decode sample. */
export function pinnedResidentMin(samples: readonly ResidencySample[]): Figure {
  const d = decodeSamples(samples).filter((s) => s.pinnedResident !== null && s.pinnedBytes !== null && (s.pinnedBytes as number) > 0);
  if (d.length === 0) return { value: null, note: 'no locked weights (the stream schedule was not running)' };
  const min = Math.min(...d.map((s) => (s.pinnedResident as number) / (s.pinnedBytes as number)));
  return { value: min, note: `minimum over ${d.length} decode samples of resident / locked bytes (mincore)` };
}

/**
 * Non-weight memory charged during decode: the group's charge minus the model's pages in RAM
 * and minus the streaming window (which holds weights). The peak over the decode samples.
 */
export function nonWeightCharged(samples: readonly ResidencySample[], windowBytes: number): Figure {
  const d = decodeSamples(samples).filter((s) => s.cgroupBytes !== null && s.persistentResident !== null && s.layerResident.every((v) => v !== null));
  if (d.length === 0) return { value: null, note: 'not capped: the charge is read from the memory group' };
  const values = d.map((s) => (s.cgroupBytes as number) - (s.persistentResident as number) - s.layerResident.reduce<number>((a, v) => a + (v ?? 0), 0) - windowBytes);
  return {
    value: Math.max(0, ...values),
    note: `peak over ${d.length} decode samples of group charge − model pages resident (mincore)${windowBytes ? ` − streaming window ${windowBytes}` : ''}`,
  };
}

/**
 * No schedule can read less per token than the weights every token uses minus what the cap
 * can hold of them once the non-weight memory is charged: weights − (cap − non-weight).
 */
export function floorBytesPerToken(weightsPerToken: number | null, capBytes: number | null, nonWeight: Figure): Figure {
  if (weightsPerToken === null) return { value: null, note: 'no plan: the weights each token reads are not known' };
  if (capBytes === null) return { value: null, note: 'no budget (--ram) given' };
  if (nonWeight.value === null) return { value: null, note: nonWeight.note };
  const v = Math.max(0, weightsPerToken - (capBytes - nonWeight.value));
  return { value: v, note: `weights per token ${weightsPerToken} − (cap ${capBytes} − non-weight charged ${Math.round(nonWeight.value)}) = ${Math.round(v)}` };
}

/** Storage bytes read per second of decode (/proc/self/io across the decode samples). */
export function decodeReadRate(samples: readonly ResidencySample[]): Figure {
  const d = decodeSamples(samples).filter((s) => s.readBytes !== null);
  if (d.length < 2) return { value: null, note: 'fewer than two decode samples' };
  const a = d[0] as ResidencySample;
  const b = d[d.length - 1] as ResidencySample;
  const dt = (b.tMs - a.tMs) / 1000;
  if (!(dt > 0)) return { value: null, note: 'no time between the decode samples' };
  return { value: ((b.readBytes as number) - (a.readBytes as number)) / dt, note: `bytes read between token ${a.token} and ${b.token} / ${dt.toFixed(2)} s` };
}

export function decodeFigures(samples: readonly ResidencySample[], o: { weightsPerToken: number | null; capBytes: number | null; windowBytes: number }): DecodeFigures {
  const nonWeight = nonWeightCharged(samples, o.windowBytes);
  return {
    limitHits: limitHitsDuringDecode(samples),
    pinnedResidentMin: pinnedResidentMin(samples),
    nonWeightBytes: nonWeight,
    floorBytesPerToken: floorBytesPerToken(o.weightsPerToken, o.capBytes, nonWeight),
    readRate: decodeReadRate(samples),
  };
}
