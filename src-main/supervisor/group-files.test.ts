// The v1 and v2 group objects against a directory of plain files laid out like a cgroup:
// checks which control files each version writes and reads, and what the readings say when
// a file is missing. Kernel behaviour (rounding, OOM) is covered by the real-hierarchy tests.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { V1_MEMORY_STAT, V1_OOM_CONTROL_AFTER_KILL, V1_OOM_CONTROL_OLD, V2_MEMORY_EVENTS_OOM, V2_MEMORY_STAT } from '../shared/cgroup/fixtures.test-util.js';
import { MEMSW_SLACK, v1Group } from './v1-group.js';
import { v2Group } from './v2-group.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function fakeGroup(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'ramforge-fakecg-'));
  dirs.push(dir);
  for (const [k, v] of Object.entries(files)) writeFileSync(join(dir, k), v);
  return dir;
}
const read = (dir: string, f: string) => readFileSync(join(dir, f), 'utf8');

describe('v2 group files', () => {
  const full = {
    'memory.max': 'max\n',
    'memory.swap.max': 'max\n',
    'memory.oom.group': '0\n',
    'memory.current': '8630272\n',
    'memory.peak': '9437184\n',
    'memory.events': V2_MEMORY_EVENTS_OOM,
    'memory.stat': V2_MEMORY_STAT,
    'cgroup.procs': '',
  };

  it('sets memory.max, memory.swap.max=0 and memory.oom.group=1, and reads the limit back', () => {
    const dir = fakeGroup(full);
    const lim = v2Group(dir).setLimit(67108864);
    expect(lim).toEqual({ bytes: 67108864, exact: '67108864', notes: [] });
    expect(read(dir, 'memory.max')).toBe('67108864');
    expect(read(dir, 'memory.swap.max')).toBe('0');
    expect(read(dir, 'memory.oom.group')).toBe('1');
  });

  it('reads usage, peak, limit hits, OOM kills and stat from the v2 files', () => {
    const g = v2Group(fakeGroup(full));
    g.setLimit(67108864);
    expect(g.usage()).toBe(8630272);
    expect(g.peak()).toEqual({ value: 9437184, source: 'memory.peak' });
    expect(g.maxEvents()).toEqual({ value: 312, source: 'memory.events:max' });
    expect(g.oomKills()).toEqual({ value: 2, source: 'memory.events:oom_kill' });
    expect(g.swapPeak()).toEqual({ value: 0, source: 'memory.swap.max=0 (swap forbidden)' });
    expect(g.stat()!.kv.get('kernel')).toBe(1257472);
    expect(g.procsFile).toBe(join(g.dir, 'cgroup.procs'));
  });

  it('older kernels: no memory.peak, no swap files, no oom.group → null with reasons and notes', () => {
    const g = v2Group(fakeGroup({ 'memory.max': 'max\n', 'memory.current': '0\n', 'cgroup.procs': '' }));
    const lim = g.setLimit(4096);
    expect(lim.notes.join(' ')).toMatch(/memory.swap.max is absent.*memory.oom.group is absent/);
    expect(g.peak()).toEqual({ value: null, reason: 'memory.peak is absent (kernel older than 5.19)' });
    expect(g.swapPeak().value).toBeNull();
    expect(g.oomKills().value).toBeNull();
  });

  it('kills through cgroup.kill when the kernel has it', () => {
    const dir = fakeGroup({ ...full, 'cgroup.kill': '' });
    v2Group(dir).killAll();
    expect(read(dir, 'cgroup.kill')).toBe('1');
  });
});

describe('v1 group files', () => {
  const full = {
    'memory.limit_in_bytes': '9223372036854771712\n',
    'memory.memsw.limit_in_bytes': '9223372036854771712\n',
    'memory.usage_in_bytes': '3076096\n',
    'memory.max_usage_in_bytes': '8642560\n',
    'memory.failcnt': '19\n',
    'memory.oom_control': V1_OOM_CONTROL_AFTER_KILL,
    'memory.stat': V1_MEMORY_STAT,
    'memory.kmem.usage_in_bytes': '462848\n',
    'cgroup.procs': '',
  };

  it('sets memory.limit_in_bytes, then memsw one batch of slack above it', () => {
    const dir = fakeGroup(full);
    expect(v1Group(dir).setLimit(67108864)).toEqual({ bytes: 67108864, exact: '67108864', notes: [] });
    expect(read(dir, 'memory.limit_in_bytes')).toBe('67108864');
    expect(read(dir, 'memory.memsw.limit_in_bytes')).toBe(String(67108864 + MEMSW_SLACK));
  });

  it('reads usage, peak, failcnt, oom_kill, stat and kmem from the v1 files', () => {
    const g = v1Group(fakeGroup(full));
    expect(g.usage()).toBe(3076096);
    expect(g.peak()).toEqual({ value: 8642560, source: 'memory.max_usage_in_bytes' });
    expect(g.maxEvents()).toEqual({ value: 19, source: 'memory.failcnt' });
    expect(g.oomKills()).toEqual({ value: 1, source: 'memory.oom_control:oom_kill' });
    expect(g.stat()!.kernel).toEqual({ value: 462848, source: 'memory.kmem.usage_in_bytes' });
  });

  it('without swap accounting: notes it; without an oom_kill line: OOM kills unknown', () => {
    const { ['memory.memsw.limit_in_bytes']: _omit, ...rest } = full;
    const dir = fakeGroup({ ...rest, 'memory.oom_control': V1_OOM_CONTROL_OLD });
    const g = v1Group(dir);
    expect(g.setLimit(1 << 20).notes[0]).toMatch(/swap is not capped/);
    expect(existsSync(join(dir, 'memory.memsw.limit_in_bytes'))).toBe(false);
    expect(g.oomKills()).toEqual({ value: null, reason: 'memory.oom_control has no oom_kill line (kernel older than 4.13)' });
  });
});
