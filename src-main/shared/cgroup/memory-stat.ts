// Select the report's memory.stat counters from a parsed v1 or v2 memory.stat, keeping the
// provenance of each figure and a reason for each one that is unknown.
import type { CgroupVersion } from './types.js';

export interface SelectedStat {
  anon: number | null;
  file: number | null;
  file_mapped: number | null;
  kernel: number | null;
}

export interface StatSelection {
  stat: SelectedStat;
  /** Field → the memory.stat key it came from. */
  sources: Partial<Record<keyof SelectedStat, string>>;
  /** Field → why it is null. */
  reasons: Partial<Record<keyof SelectedStat, string>>;
}

// v1 names differ: rss = anonymous (incl. swap cache), cache = page cache incl. shmem. The
// total_* forms include descendants; a supervised group has none, so both agree there.
const V1_KEYS: Record<keyof SelectedStat, string | null> = {
  anon: 'total_rss',
  file: 'total_cache',
  file_mapped: 'total_mapped_file',
  kernel: null,
};
const V2_KEYS: Record<keyof SelectedStat, string | null> = {
  anon: 'anon',
  file: 'file',
  file_mapped: 'file_mapped',
  kernel: 'kernel',
};
const V1_FALLBACK: Partial<Record<keyof SelectedStat, string>> = {
  anon: 'rss',
  file: 'cache',
  file_mapped: 'mapped_file',
};

export function selectStat(version: CgroupVersion, kv: Map<string, number>): StatSelection {
  const keys = version === 1 ? V1_KEYS : V2_KEYS;
  const stat: SelectedStat = { anon: null, file: null, file_mapped: null, kernel: null };
  const sources: StatSelection['sources'] = {};
  const reasons: StatSelection['reasons'] = {};
  for (const field of Object.keys(stat) as (keyof SelectedStat)[]) {
    const candidates = [keys[field], version === 1 ? V1_FALLBACK[field] : undefined].filter(
      (k): k is string => typeof k === 'string',
    );
    const hit = candidates.find((k) => kv.has(k));
    if (hit !== undefined) {
      stat[field] = kv.get(hit)!;
      sources[field] = `memory.stat:${hit}`;
    } else if (candidates.length === 0) {
      reasons[field] = 'cgroup v1 memory.stat has no kernel-memory counter (see memory.kmem.usage_in_bytes)';
    } else {
      reasons[field] = `memory.stat has no '${candidates[0]}' line on this kernel`;
    }
  }
  return { stat, sources, reasons };
}
