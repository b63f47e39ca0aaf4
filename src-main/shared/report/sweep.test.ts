// The sweep's table and plot from points, including caps where a run could not be made.
import { describe, expect, it } from 'vitest';
import { sweepMarkdown, sweepSvg, type SweepPoint } from './sweep.js';

const MiB = 1024 * 1024;
const cell = (policy: string, status: string, tokS: number | null) => ({
  policy,
  status,
  decodeTokS: tokS,
  readPerToken: tokS === null ? null : 500 * MiB,
  floorPerToken: tokS === null ? null : 450 * MiB,
  limitHitsDecode: tokS === null ? null : 0,
  identicalTokens: tokS === null ? null : true,
});
const points: SweepPoint[] = [
  { capBytes: 300 * MiB, fraction: 0.4, cells: [cell('off', 'cannot-run', null), cell('stream', 'cannot-run', null)] },
  { capBytes: 400 * MiB, fraction: 0.5, cells: [cell('off', 'ok', 2.5), cell('stream', 'ok', 8.75)] },
  { capBytes: 600 * MiB, fraction: 0.75, cells: [cell('off', 'oom', null), cell('stream', 'ok', 10)] },
];

describe('sweep table', () => {
  const md = sweepMarkdown(points);
  const rows = md.split('\n').filter((l) => l.startsWith('| '));
  it('says why a cap has no tok/s: below the minimum working set, or killed', () => {
    const below = rows.find((r) => r.includes('300.0 MiB'))!;
    expect(below.split('|').filter((c) => c.trim() === 'cannot-run')).toHaveLength(2);
    expect(below.trim().endsWith('| — |')).toBe(true); // no tokens to compare
    expect(rows.find((r) => r.includes('400.0 MiB'))!.trim().endsWith('| yes |')).toBe(true);
    const killed = rows.find((r) => r.includes('600.0 MiB'))!;
    expect(killed).toContain('| oom |');
    expect(killed).toContain('| 10.00 |');
  });
  it('gives the ratio of the last policy to the first where both ran', () => {
    expect(rows.find((r) => r.includes('400.0 MiB'))).toContain('| 3.50× |');
  });
  it("gives the last policy's floor and its read over that floor", () => {
    const head = rows[0]!.split('|').map((c) => c.trim());
    const row = rows.find((r) => r.includes('400.0 MiB'))!.split('|').map((c) => c.trim());
    expect(row[head.indexOf('stream floor/token')]).toBe('450.0 MiB');
    expect(row[head.indexOf('stream read/floor')]).toBe('1.11×');
  });
  it('plots without the caps that did not run', () => {
    const svg = sweepSvg(points, 'test');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).not.toContain('NaN');
  });
});
