import { describe, expect, it } from 'vitest';
import {
  countSwapAreas,
  parseControllers,
  parseCount,
  parseFlatKeyed,
  parseLimit,
  parseMemoryEvents,
  parseOomControl,
  parsePids,
  parseV1Limit,
} from './control-files.js';
import {
  V1_LIMIT_UNLIMITED,
  V1_MEMORY_STAT,
  V1_OOM_CONTROL_AFTER_KILL,
  V1_OOM_CONTROL_OLD,
  V2_MEMORY_EVENTS_OLD,
  V2_MEMORY_EVENTS_OOM,
  V2_MEMORY_STAT,
} from './fixtures.test-util.js';

describe('single-value files', () => {
  it('parses counts (memory.usage_in_bytes, memory.current, memory.peak, memory.failcnt)', () => {
    expect(parseCount('3076096\n')).toBe(3076096);
    expect(parseCount('0\n')).toBe(0);
    expect(() => parseCount('max\n', 'memory.current')).toThrow(/memory.current/);
    expect(() => parseCount('-1\n')).toThrow();
  });

  it("parses v2 limits: 'max' or bytes, keeping the exact text", () => {
    expect(parseLimit('max\n')).toEqual({ unlimited: true, exact: 'max' });
    expect(parseLimit('67108864\n')).toEqual({ unlimited: false, bytes: 67108864, exact: '67108864' });
    expect(() => parseLimit('64M\n')).toThrow();
  });

  it('parses v1 limits: the huge "no limit" value is unlimited, a real limit is exact', () => {
    expect(parseV1Limit(V1_LIMIT_UNLIMITED)).toEqual({ unlimited: true, exact: 'max' });
    expect(parseV1Limit('67108864\n')).toEqual({ unlimited: false, bytes: 67108864, exact: '67108864' });
    // 12345 written reads back page-rounded; the parser takes what the kernel printed.
    expect(parseV1Limit('12288\n')).toMatchObject({ bytes: 12288 });
  });
});

describe('keyed files', () => {
  it('parses a real v1 memory.stat, big values included', () => {
    const kv = parseFlatKeyed(V1_MEMORY_STAT, 'memory.stat');
    expect(kv.size).toBe(42);
    expect(kv.get('total_rss')).toBe(1691648);
    expect(kv.get('cache')).toBe(28672);
    expect(kv.get('hierarchical_memory_limit')).toBe(9223372036854771712);
  });

  it('parses a v2 memory.stat', () => {
    const kv = parseFlatKeyed(V2_MEMORY_STAT, 'memory.stat');
    expect(kv.get('anon')).toBe(8630272);
    expect(kv.get('kernel')).toBe(1257472);
    expect(kv.get('thp_swpout_fallback')).toBe(0);
  });

  it('rejects nested-keyed content (memory.numa_stat is not a flat file)', () => {
    expect(() => parseFlatKeyed('total=100 N0=100\n', 'memory.numa_stat')).toThrow(/memory.numa_stat/);
  });

  it('parses v1 memory.oom_control after a real OOM kill', () => {
    expect(parseOomControl(V1_OOM_CONTROL_AFTER_KILL)).toEqual({ oom_kill_disable: false, under_oom: false, oom_kill: 1 });
  });

  it('reports oom_kill as unknown (null) on kernels without the line, not 0', () => {
    expect(parseOomControl(V1_OOM_CONTROL_OLD).oom_kill).toBeNull();
    expect(() => parseOomControl('oom_kill 3\n')).toThrow();
  });

  it('parses v2 memory.events with and without oom_group_kill', () => {
    expect(parseMemoryEvents(V2_MEMORY_EVENTS_OOM)).toEqual({ low: 0, high: 0, max: 312, oom: 1, oom_kill: 2, oom_group_kill: 1 });
    expect(parseMemoryEvents(V2_MEMORY_EVENTS_OLD).oom_group_kill).toBeNull();
    expect(() => parseMemoryEvents('low 0\nhigh 0\n')).toThrow(/'max'/);
  });
});

describe('lists', () => {
  it('parses cgroup.procs', () => {
    expect(parsePids('3999\n4127\n')).toEqual([3999, 4127]);
    expect(parsePids('')).toEqual([]);
  });

  it('parses cgroup.controllers (the CI machine has only hugetlb on v2)', () => {
    expect(parseControllers('hugetlb\n')).toEqual(['hugetlb']);
    expect(parseControllers('cpuset cpu io memory hugetlb pids rdma misc\n')).toContain('memory');
    expect(parseControllers('\n')).toEqual([]);
  });

  it('counts swap areas in /proc/swaps', () => {
    expect(countSwapAreas('Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n')).toBe(0);
    expect(
      countSwapAreas('Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/swapfile                               file\t\t2097148\t\t0\t\t-2\n'),
    ).toBe(1);
  });
});
