// The bench table's physical limit (pure): a capped run's seconds per token against the larger of
// the resident run's (the compute a token costs) and its own reads at the device's rate, both
// measured in the same command; shown only where both were measured.
import { describe, expect, it } from 'vitest';
import { benchJson, benchTable, type BenchRow } from './bench-output.js';
import type { RunReport } from '../shared/report/report-types.js';

const report = (tokS: number, readPerToken: number): RunReport =>
  ({
    outcome: { status: 'ok' },
    generation: { decode_tok_s: tokS, token_ids: [1, 2, 3] },
    residency: { bytes_read_per_token: readPerToken, floor_bytes_per_token: null, limit_hits_decode: 0, pinned_resident_min: null, read_rate_bytes_per_s: null, non_weight_bytes: null, timeline: [] },
    cgroup: null,
  }) as unknown as RunReport;
const row = (policy: string, r: RunReport): BenchRow => ({ policy, report: r, decodeRuns: [r.generation?.decode_tok_s ?? null] });
const device = { bytesPerS: 1e9, source: 'measured with direct I/O: …' };

describe('bench against the physical limit', () => {
  it('read-bound: 0.5 GB a token at 1 GB/s is 0.5 s, above the resident run’s 0.1 s; a run at 1.6 tok/s is 1.25× it', () => {
    const rows = [row('off', report(0.2, 4e9)), row('stream', report(1.6, 0.5e9)), row('resident', report(10, 0))];
    const j = benchJson('m', 1, true, rows, undefined, device);
    expect(j.device_read_rate_bytes_per_s).toBe(1e9);
    const s = j.results[1]!;
    expect(s.compute_s_per_token).toBeCloseTo(0.1, 12);
    expect(s.read_s_per_token).toBeCloseTo(0.5, 12);
    expect(s.limit_s_per_token).toBeCloseTo(0.5, 12);
    expect(s.vs_limit).toBeCloseTo(1.25, 12);
    expect(j.results[2]!.vs_limit).toBeUndefined();
    const table = benchTable(rows, device);
    expect(table).toMatch(/vs limit/);
    expect(table).toMatch(/1\.25×/);
    expect(table).toMatch(/^device read rate 953\.7 MiB\/s: measured/m);
  });

  it('compute-bound: reads at the device’s rate below the resident run’s seconds, the limit is the compute', () => {
    const j = benchJson('m', 1, true, [row('stream', report(4, 0.05e9)), row('resident', report(5, 0))], undefined, device);
    expect(j.results[0]!.limit_s_per_token).toBeCloseTo(0.2, 12);
    expect(j.results[0]!.vs_limit).toBeCloseTo(1.25, 12);
  });

  it('without a resident run, or without the device measured, no limit is claimed', () => {
    expect(benchJson('m', 1, true, [row('stream', report(1, 1e9))], undefined, device).results[0]!.vs_limit).toBeNull();
    expect(benchJson('m', 1, true, [row('stream', report(1, 1e9)), row('resident', report(5, 0))]).results[0]!.vs_limit).toBeNull();
    expect(benchTable([row('stream', report(1, 1e9)), row('resident', report(5, 0))])).not.toMatch(/vs limit|device read rate/);
  });
});

describe('bench against the plan', () => {
  const planned = (tokS: number, predicted: number): RunReport => ({ ...report(tokS, 1e8), plan: { quantities: { predictedDecodeTokS: { value: predicted, formula: '' } } } }) as unknown as RunReport;
  it("stream's row shows the plan's predicted decode speed and measured ÷ plan; other policies predict nothing", () => {
    const rows = [row('off', planned(0.2, 10)), row('stream', planned(8, 10)), row('resident', report(12, 0))];
    const j = benchJson('m', 1, true, rows);
    expect(j.results[0]!.plan_decode_tok_s).toBeNull();
    expect(j.results[1]!.plan_decode_tok_s).toBe(10);
    expect(j.results[1]!.measured_over_plan).toBeCloseTo(0.8, 12);
    const table = benchTable(rows);
    expect(table).toMatch(/plan tok\/s\s+measured\/plan/);
    expect(table).toMatch(/10\.00\s+0\.80×/);
  });
  it('a plan without a prediction (cannot-run) claims no ratio', () => {
    const j = benchJson('m', 1, true, [row('stream', { ...report(1, 0), plan: null } as unknown as RunReport)]);
    expect(j.results[0]!.measured_over_plan).toBeNull();
    expect(benchTable([row('stream', report(1, 0))])).not.toMatch(/plan tok\/s/);
  });
});

describe('the read-ahead A/B runs in both orders', () => {
  it('stream and stream-no-read-ahead swap places in every other repetition; other runs keep theirs', async () => {
    const { runOrder } = await import('./bench-runner.js');
    const v = ['off', 'stream', 'stream-no-read-ahead', 'resident'].map((label) => ({ label }));
    expect(runOrder(v, 0).map((x) => x.label)).toEqual(['off', 'stream', 'stream-no-read-ahead', 'resident']);
    expect(runOrder(v, 1).map((x) => x.label)).toEqual(['off', 'stream-no-read-ahead', 'stream', 'resident']);
    expect(runOrder(v, 2).map((x) => x.label)).toEqual(['off', 'stream', 'stream-no-read-ahead', 'resident']);
    expect(runOrder([{ label: 'off' }, { label: 'stream' }], 1).map((x) => x.label)).toEqual(['off', 'stream']);
  });
});
