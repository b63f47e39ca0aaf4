// Test helper (imported only by *.test.ts): a residency sample with every figure unknown
// except those the test sets.
import type { ResidencySample } from '../../src-main/shared/residency-types.js';

export function sample(p: Partial<ResidencySample> = {}): ResidencySample {
  return {
    tMs: 0,
    token: 0,
    phase: 'decode',
    layerResident: [],
    persistentResident: null,
    rssBytes: null,
    cgroupBytes: null,
    cgroupLimitBytes: null,
    limitHits: null,
    pinnedResident: null,
    pinnedBytes: null,
    readBytes: null,
    majorFaults: null,
    decodeTokS: null,
    events: [],
    ...p,
  };
}
