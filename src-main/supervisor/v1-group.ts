// cgroup v1 memory group.
import { parseCount, parseFlatKeyed, parseOomControl, parsePids, parseV1Limit } from '../shared/cgroup/control-files.js';
import { readControl, readParsed, writeControl } from './control-io.js';
import type { MemoryGroup, Reading } from './group.js';
import { killPids, systemHasSwap } from './procs.js';
import { join } from 'node:path';

/**
 * memsw (memory+swap) is set 2 MiB above the memory limit, not equal to it. The kernel charges
 * in batches (64 pages, or 512 for a huge page) and tries the memsw counter first; with the
 * two limits equal memsw always trips first, and since Linux 6.x only the memory counter keeps
 * a v1 `failcnt`, so limit hits would always read 0 (measured here: 0 hits at a full cap). With
 * more slack than one batch, the memory counter trips first and the hits are counted; at most
 * 2 MiB can go to swap.
 */
export const MEMSW_SLACK = 2 * 1024 * 1024;

export function v1Group(dir: string): MemoryGroup {
  let swapSet = false;
  const g: MemoryGroup = {
    version: 1,
    dir,
    procsFile: join(dir, 'cgroup.procs'),
    setLimit(bytes) {
      const notes: string[] = [];
      writeControl(dir, 'memory.limit_in_bytes', String(bytes));
      const exact = (readControl(dir, 'memory.limit_in_bytes') ?? '').trim();
      const lim = parseV1Limit(exact);
      if (lim.unlimited) throw new Error(`memory.limit_in_bytes reads back as unlimited after writing ${bytes}`);
      if (readControl(dir, 'memory.memsw.limit_in_bytes') !== null) {
        writeControl(dir, 'memory.memsw.limit_in_bytes', String(lim.bytes + MEMSW_SLACK));
        swapSet = true;
      } else {
        notes.push('memory.memsw.limit_in_bytes is absent (swap accounting off): swap is not capped');
      }
      return { bytes: lim.bytes, exact: lim.exact, notes };
    },
    usage() {
      return readParsed(dir, 'memory.usage_in_bytes', parseCount);
    },
    peak(): Reading {
      const v = readParsed(dir, 'memory.max_usage_in_bytes', parseCount);
      return v === null ? { value: null, reason: 'memory.max_usage_in_bytes is absent' } : { value: v, source: 'memory.max_usage_in_bytes' };
    },
    maxEvents(): Reading {
      const v = readParsed(dir, 'memory.failcnt', parseCount);
      return v === null ? { value: null, reason: 'memory.failcnt is absent' } : { value: v, source: 'memory.failcnt' };
    },
    oomKills(): Reading {
      const oc = readParsed(dir, 'memory.oom_control', (t) => parseOomControl(t));
      if (oc === null) return { value: null, reason: 'memory.oom_control is absent' };
      if (oc.oom_kill === null) return { value: null, reason: 'memory.oom_control has no oom_kill line (kernel older than 4.13)' };
      return { value: oc.oom_kill, source: 'memory.oom_control:oom_kill' };
    },
    swapPeak(): Reading {
      if (!systemHasSwap()) return { value: 0, source: '/proc/swaps (no swap configured)' };
      if (swapSet) {
        return { value: null, reason: `cgroup v1 keeps no swap peak; memsw limit allows at most ${MEMSW_SLACK} bytes of swap` };
      }
      return { value: null, reason: 'cgroup v1 keeps no swap peak and swap accounting is off' };
    },
    stat() {
      const kv = readParsed(dir, 'memory.stat', parseFlatKeyed);
      if (kv === null) return null;
      const k = readParsed(dir, 'memory.kmem.usage_in_bytes', parseCount);
      return { kv, kernel: k === null ? null : { value: k, source: 'memory.kmem.usage_in_bytes' } };
    },
    procs() {
      return readParsed(dir, 'cgroup.procs', parsePids) ?? [];
    },
    killAll() {
      killPids(g.procs());
    },
  };
  return g;
}
