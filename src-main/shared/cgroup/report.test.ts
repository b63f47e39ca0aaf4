import { describe, expect, it } from 'vitest';
import { formatMemoryReport, reportSections, type SupervisedOutcome } from './report.js';

const oom: SupervisedOutcome = {
  status: 'oom',
  exitCode: 137,
  workerExitCode: null,
  signal: 'SIGKILL',
  wallMs: 208,
  message: 'killed by the memory cap (1 OOM kill)',
  cgroup: {
    version: 1,
    path: '/cg/ramforge-1-abcdef',
    limit_bytes: 67108864,
    limit_bytes_exact: '67108864',
    limit_bytes_requested: 67108864,
    peak_bytes: 67108864,
    max_events: 19,
    oom_kills: 1,
    swap_peak_bytes: null,
    stat: { anon: 4362240, file: 0, file_mapped: 0, kernel: null },
    stat_t_ms: 100,
    usage_samples: 2,
    removed: true,
    sources: { peak_bytes: 'memory.max_usage_in_bytes', max_events: 'memory.failcnt', oom_kills: 'memory.oom_control:oom_kill' },
    reasons: { swap_peak_bytes: 'cgroup v1 keeps no swap peak', 'stat.kernel': 'no kmem counter' },
  },
};

describe('formatMemoryReport', () => {
  it('prints the outcome, exact limit bytes, peak, hits and OOM kills with their sources', () => {
    const t = formatMemoryReport(oom);
    expect(t).toContain('cgroup v1 /cg/ramforge-1-abcdef');
    expect(t).toContain('oom (exit 137): killed by the memory cap (1 OOM kill)');
    expect(t).toMatch(/limit\s+67108864 bytes \(64\.0 MiB\)\n/);
    expect(t).toMatch(/peak\s+67108864 bytes .*memory\.max_usage_in_bytes/);
    expect(t).toMatch(/limit hits\s+19 .*memory\.failcnt/);
    expect(t).toMatch(/OOM kills\s+1 /);
  });

  it('prints unknown figures as unknown with the reason, never as 0', () => {
    const t = formatMemoryReport(oom);
    expect(t).toMatch(/swap peak\s+unknown \(cgroup v1 keeps no swap peak\)/);
    expect(t).toMatch(/kernel\s+unknown \(no kmem counter\)/);
  });

  it('says when the kernel rounded the limit and when the group was not removed', () => {
    const t = formatMemoryReport({
      ...oom,
      cgroup: { ...oom.cgroup, limit_bytes: 12288, limit_bytes_exact: '12288', limit_bytes_requested: 12345, removed: false, reasons: { removed: 'still busy' } },
    });
    expect(t).toContain('12288 bytes');
    expect(t).toContain('requested 12345');
    expect(t).toMatch(/WARNING\s+group not removed: still busy/);
  });
});

describe('reportSections', () => {
  it('gives the report its outcome {status, exit_code} and cgroup sections', () => {
    const r = reportSections(oom);
    expect(r.outcome).toEqual({ status: 'oom', exit_code: 137, signal: 'SIGKILL', wall_ms: 208, message: oom.message });
    expect(r.cgroup).toMatchObject({ version: 1, limit_bytes: 67108864, peak_bytes: 67108864, max_events: 19, oom_kills: 1 });
  });
});
