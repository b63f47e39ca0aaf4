// cgroup v2 memory group.
import { join } from 'node:path';
import { parseCount, parseLimit, parseMemoryEvents, parseFlatKeyed, parsePids } from '../shared/cgroup/control-files.js';
import { hasControl, readControl, readParsed, writeControl } from './control-io.js';
import type { MemoryGroup, Reading } from './group.js';
import { killPids } from './procs.js';

export function v2Group(dir: string): MemoryGroup {
  let swapZero = false;
  const events = () => readParsed(dir, 'memory.events', (t) => parseMemoryEvents(t));
  const g: MemoryGroup = {
    version: 2,
    dir,
    procsFile: join(dir, 'cgroup.procs'),
    setLimit(bytes) {
      const notes: string[] = [];
      writeControl(dir, 'memory.max', String(bytes));
      const lim = parseLimit(readControl(dir, 'memory.max') ?? '');
      if (lim.unlimited) throw new Error(`memory.max reads back as 'max' after writing ${bytes}`);
      if (readControl(dir, 'memory.swap.max') !== null) {
        writeControl(dir, 'memory.swap.max', '0');
        swapZero = true;
      } else {
        notes.push('memory.swap.max is absent (no swap accounting): swap is not capped');
      }
      if (readControl(dir, 'memory.oom.group') !== null) writeControl(dir, 'memory.oom.group', '1');
      else notes.push('memory.oom.group is absent: an OOM kill may leave other processes of the group running');
      return { bytes: lim.bytes, exact: lim.exact, notes };
    },
    usage() {
      return readParsed(dir, 'memory.current', parseCount);
    },
    peak(): Reading {
      const v = readParsed(dir, 'memory.peak', parseCount);
      return v === null ? { value: null, reason: 'memory.peak is absent (kernel older than 5.19)' } : { value: v, source: 'memory.peak' };
    },
    maxEvents(): Reading {
      const e = events();
      return e === null ? { value: null, reason: 'memory.events is absent' } : { value: e.max, source: 'memory.events:max' };
    },
    oomKills(): Reading {
      const e = events();
      return e === null ? { value: null, reason: 'memory.events is absent' } : { value: e.oom_kill, source: 'memory.events:oom_kill' };
    },
    swapPeak(): Reading {
      const v = readParsed(dir, 'memory.swap.peak', parseCount);
      if (v !== null) return { value: v, source: 'memory.swap.peak' };
      if (swapZero) return { value: 0, source: 'memory.swap.max=0 (swap forbidden)' };
      return { value: null, reason: 'memory.swap.peak and memory.swap.max are absent' };
    },
    stat() {
      const kv = readParsed(dir, 'memory.stat', parseFlatKeyed);
      return kv === null ? null : { kv, kernel: null };
    },
    procs() {
      return readParsed(dir, 'cgroup.procs', parsePids) ?? [];
    },
    killAll() {
      // cgroup.kill (5.14+) kills the whole subtree atomically, forks included.
      if (hasControl(dir, 'cgroup.kill')) {
        try {
          writeControl(dir, 'cgroup.kill', '1');
          return;
        } catch {
          /* fall back to signalling each pid */
        }
      }
      killPids(g.procs());
    },
  };
  return g;
}
