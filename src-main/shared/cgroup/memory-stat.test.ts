import { describe, expect, it } from 'vitest';
import { parseFlatKeyed } from './control-files.js';
import { V1_MEMORY_STAT, V2_MEMORY_STAT, V2_MEMORY_STAT_5_4 } from './fixtures.test-util.js';
import { selectStat } from './memory-stat.js';

describe('selectStat', () => {
  it('maps v1 names (total_rss, total_cache, total_mapped_file); kernel is unknown with a reason', () => {
    const s = selectStat(1, parseFlatKeyed(V1_MEMORY_STAT));
    expect(s.stat).toEqual({ anon: 1691648, file: 28672, file_mapped: 0, kernel: null });
    expect(s.sources.anon).toBe('memory.stat:total_rss');
    expect(s.reasons.kernel).toMatch(/kmem/);
  });

  it('falls back to the local v1 names when total_* are missing', () => {
    const s = selectStat(1, parseFlatKeyed('cache 4096\nrss 8192\nmapped_file 0\n'));
    expect(s.stat).toMatchObject({ anon: 8192, file: 4096, file_mapped: 0 });
    expect(s.sources.file).toBe('memory.stat:cache');
  });

  it('maps v2 names, kernel included', () => {
    const s = selectStat(2, parseFlatKeyed(V2_MEMORY_STAT));
    expect(s.stat).toEqual({ anon: 8630272, file: 1056768, file_mapped: 811008, kernel: 1257472 });
    expect(s.reasons).toEqual({});
  });

  it('says why kernel is null on a v2 kernel without the line, never 0', () => {
    const s = selectStat(2, parseFlatKeyed(V2_MEMORY_STAT_5_4));
    expect(s.stat.kernel).toBeNull();
    expect(s.reasons.kernel).toMatch(/no 'kernel' line/);
    expect(s.stat.anon).toBe(846118912);
  });
});
