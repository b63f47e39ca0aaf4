// Every residency policy produces a report that validates against the schema; reuse-aware with
// a truncated graph trace refuses the profile and says so in the report.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './built-cli.test-util.js';
import { validateReport } from './report-schema.test-util.js';
import { POLICIES } from '../shared/worker-protocol.js';

let dir = '';
let model = '';
const validate = validateReport;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ramforge-policies-'));
  model = join(dir, 'm.gguf');
  const s = runCli(['synth', '--arch', 'llama', '--preset', 'tiny', '--type', 'Q4_0', '--layers', '4', '--out', model]);
  expect(s.code, s.stderr).toBe(0);
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function run(extra: string[]): { code: number | null; stderr: string; report: Record<string, any> } {
  const path = join(dir, `r-${Math.random().toString(36).slice(2)}.json`);
  const r = runCli(['run', model, '-p', 'Once upon a time', '-n', '6', '--temperature', '0', '-c', '256', '--quiet', '--report-json', path, ...extra]);
  return { code: r.code, stderr: r.stderr, report: JSON.parse(readFileSync(path, 'utf8')) };
}

describe('reports for every policy', () => {
  const offTokens: number[][] = [];
  it.each(POLICIES)('%s: exit 0, schema-valid report, tokens identical to off', (policy) => {
    const { code, stderr, report } = run(['--policy', policy, '--ram', '64M']);
    expect(code, stderr).toBe(0);
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    expect(report.config.policy).toBe(policy);
    expect(report.residency.layers).toHaveLength(4);
    if (policy === 'off') offTokens.push(report.generation.token_ids);
    else expect(report.generation.token_ids).toEqual(offTokens[0]);
  });

  it('reuse-aware with a truncated graph trace refuses the profile and says so', () => {
    const { code, stderr, report } = run(['--policy', 'reuse-aware', '--ram', '64M', '--graph-trace-events', '5']);
    expect(code, stderr).toBe(0);
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    expect(report.graph_trace.complete).toBe(false);
    expect(report.graph_trace.dropped).toBeGreaterThan(0);
    expect(report.graph_trace.profile_note).toMatch(/refused/);
  });

  it('reuse-aware with a complete trace uses the profile; --graph-trace-detail keeps every node', () => {
    const { code, stderr, report } = run(['--policy', 'reuse-aware', '--ram', '64M', '--graph-trace-detail']);
    expect(code, stderr).toBe(0);
    expect(report.graph_trace.complete).toBe(true);
    expect(report.graph_trace.profile_note).toMatch(/using the graph-trace profile/);
    expect(report.graph_trace.nodes.length).toBe(report.graph_trace.events);
    expect(report.graph_trace.tensors.some((t: { name: string }) => t.name === 'blk.3.ffn_down.weight')).toBe(true);
  });

  it('--release-layer drops a known layer after load and reports requested, accepted and observed bytes', () => {
    const { code, stderr, report } = run(['--release-layer', '2']);
    expect(code, stderr).toBe(0);
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    // Manual releases need the engine: the run observes instead of plain off, and says so.
    expect(report.config.policy).toBe('observe');
    expect(report.config.repack).toBe(false);
    const a = report.residency.actions.find((x: { layer?: number }) => x.layer === 2);
    expect(a.requested_bytes).toBe(report.residency.layers[2].bytes);
    expect(a.accepted_bytes).toBeGreaterThan(0.9 * a.requested_bytes);
    expect(a.observed_bytes).toBe(a.accepted_bytes);
  });
});
