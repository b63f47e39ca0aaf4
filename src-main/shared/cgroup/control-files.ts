// Parsers for the memory controller's control files, cgroup v1 and v2 (kernel docs:
// admin-guide/cgroup-v1/memory.rst and admin-guide/cgroup-v2.rst). Pure: text in, values out.

/** A non-negative integer from a control file, or throws. Values above 2^53 are imprecise. */
export function parseCount(text: string, file = 'control file'): number {
  const t = text.trim();
  if (!/^\d+$/.test(t)) throw new Error(`${file}: expected an integer, got '${t}'`);
  return Number(t);
}

/** v2 limits (memory.max, memory.swap.max, memory.high): "max" or a byte count. */
export type Limit = { unlimited: true; exact: 'max' } | { unlimited: false; bytes: number; exact: string };

export function parseLimit(text: string, file = 'memory.max'): Limit {
  const t = text.trim();
  if (t === 'max') return { unlimited: true, exact: 'max' };
  return { unlimited: false, bytes: parseCount(t, file), exact: t };
}

/**
 * v1 limits (memory.limit_in_bytes): "no limit" is PAGE_COUNTER_MAX pages, printed as a
 * number near 2^63 (9223372036854771712 with 4 KiB pages). Anything at or above 2^62 is
 * treated as unlimited.
 */
export function parseV1Limit(text: string, file = 'memory.limit_in_bytes'): Limit {
  const t = text.trim();
  if (!/^\d+$/.test(t)) throw new Error(`${file}: expected an integer, got '${t}'`);
  if (BigInt(t) >= 2n ** 62n) return { unlimited: true, exact: 'max' };
  return { unlimited: false, bytes: Number(t), exact: t };
}

/**
 * "key value" lines: memory.stat (v1 and v2), memory.events (v2), memory.oom_control (v1),
 * memory.swap.events. Lines that are not "word integer" (nested keyed files) are rejected.
 */
export function parseFlatKeyed(text: string, file = 'control file'): Map<string, number> {
  const out = new Map<string, number>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const m = /^(\S+)\s+(\d+)$/.exec(line);
    if (!m) throw new Error(`${file}: malformed line '${line}'`);
    out.set(m[1]!, Number(m[2]));
  }
  return out;
}

export interface MemoryEventsV2 {
  low: number;
  high: number;
  /** Times usage was about to exceed memory.max (the limit was hit). */
  max: number;
  oom: number;
  oom_kill: number;
  /** Only on kernels ≥ 5.17. */
  oom_group_kill: number | null;
}

export function parseMemoryEvents(text: string): MemoryEventsV2 {
  const kv = parseFlatKeyed(text, 'memory.events');
  const need = (k: string): number => {
    const v = kv.get(k);
    if (v === undefined) throw new Error(`memory.events: no '${k}' line`);
    return v;
  };
  return {
    low: need('low'),
    high: need('high'),
    max: need('max'),
    oom: need('oom'),
    oom_kill: need('oom_kill'),
    oom_group_kill: kv.get('oom_group_kill') ?? null,
  };
}

export interface OomControlV1 {
  oom_kill_disable: boolean;
  under_oom: boolean;
  /** OOM kills in this group; the line exists on kernels ≥ 4.13, else null. */
  oom_kill: number | null;
}

export function parseOomControl(text: string): OomControlV1 {
  const kv = parseFlatKeyed(text, 'memory.oom_control');
  const disable = kv.get('oom_kill_disable');
  const under = kv.get('under_oom');
  if (disable === undefined || under === undefined) {
    throw new Error('memory.oom_control: expected oom_kill_disable and under_oom lines');
  }
  return { oom_kill_disable: disable !== 0, under_oom: under !== 0, oom_kill: kv.get('oom_kill') ?? null };
}

/** cgroup.procs / tasks: one pid per line. */
export function parsePids(text: string): number[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .map((l) => parseCount(l, 'cgroup.procs'));
}

/** cgroup.controllers / cgroup.subtree_control (v2): space-separated names. */
export function parseControllers(text: string): string[] {
  return text.trim() === '' ? [] : text.trim().split(/\s+/);
}

/** /proc/swaps: a header line, then one line per active swap area. */
export function countSwapAreas(text: string): number {
  return text.split('\n').slice(1).filter((l) => l.trim() !== '').length;
}
