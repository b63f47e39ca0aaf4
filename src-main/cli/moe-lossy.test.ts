// The lossy knobs of a mixture of experts, through the CLI a user runs: `--experts-used N` routes
// each token to N experts (llama.cpp reads the override in place of the file's count), and
// `--skip-cold-experts W` under the expert cache computes a decoded token's missed expert that
// carries less than W of its routing weight as zero instead of reading it. Both are off by
// default, say in the report that they change the answer, and `bench` sets each beside the
// lossless run with its teacher-forced agreement (the share of the lossless tokens the lossy
// model picks when fed them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './built-cli.test-util.js';
import { validateReport } from './report-schema.test-util.js';
import { detectCgroup } from '../supervisor/index.js';

const capped = detectCgroup();
if (!capped.usable && process.env.CI !== 'true') console.warn(`skipping the lossy MoE knob tests: ${capped.reason}`);

let dir = '';
let model = '';
let dense = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ramforge-moe-lossy-'));
  model = join(dir, 'qwen3moe.gguf');
  dense = join(dir, 'tiny.gguf');
  for (const [out, args] of [
    [model, ['--arch', 'qwen3moe', '--preset', 'small', '--seed', '5']],
    [dense, ['--preset', 'tiny']],
  ] as const) {
    const s = runCli(['synth', ...args, '--quiet', '--out', out]);
    expect(s.code, s.stderr).toBe(0);
  }
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const PROMPT = ['-p', 'Once upon a time, in a land far away', '-n', '12', '--temperature', '0'];

function run(extra: string[]): Record<string, any> {
  const path = join(dir, `r-${Math.random().toString(36).slice(2)}.json`);
  const r = runCli(['run', model, ...PROMPT, '--quiet', '--report-json', path, ...extra], { timeoutMs: 300_000 });
  expect(r.code, r.stderr).toBe(0);
  const report = JSON.parse(readFileSync(path, 'utf8'));
  expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
  return report;
}

describe('the lossy knobs refuse what they cannot mean (exit 2, nothing loaded)', () => {
  it.each([
    [['--experts-used', '2'], 'dense', /not a mixture of experts/],
    [['--skip-cold-experts', '0.1'], 'dense', /not a mixture of experts/],
    [['--experts-used', '40'], 'moe', /the model has 32 experts/],
    [['--skip-cold-experts', '1.5'], 'moe', /--skip-cold-experts/],
    [['--experts-used', '2', '--routing-trace', 'x.csv'], 'moe', /does not combine with --routing-trace/],
  ] as const)('%j on the %s model', (flags, which, message) => {
    const r = runCli(['run', which === 'dense' ? dense : model, '-p', 'hi', '-n', '2', ...flags]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});

describe('--experts-used', () => {
  it('routes each token to N experts: the routing written has N per token, and the report says the run is lossy', () => {
    const trace = join(dir, 'two.route.csv');
    const report = run(['--experts-used', '2', '--routing-trace-out', trace]);
    expect(report.lossy).toMatchObject({ experts_used: 2, skip_cold_experts: null });
    const text = readFileSync(trace, 'utf8');
    expect(text).toMatch(/n_expert_used=2\b/);
    const slots = text
      .split('\n')
      .filter((l) => /^\d/.test(l))
      .map((l) => Number(l.split(',')[4]));
    expect(slots.length).toBeGreaterThan(0);
    expect(Math.max(...slots)).toBe(1);
    // Without the knob: the model's own four, and no lossy section.
    const own = join(dir, 'own.route.csv');
    const lossless = run(['--routing-trace-out', own]);
    expect(lossless.lossy).toBeUndefined();
    expect(readFileSync(own, 'utf8')).toMatch(/n_expert_used=4\b/);
  });
});

// 460M: between the expert cache's minimum and full residency (as in moe-stream.test.ts).
const CAP = '460M';

describe.skipIf(!capped.usable && process.env.CI !== 'true')('--skip-cold-experts under the expert cache (an enforced cap below the file)', () => {
  it('skips only missed experts weighted below the threshold, and reads less per token than the lossless run', () => {
    const base = ['--policy', 'stream', '--ram', CAP, '--enforce-ram'];
    const lossless = run(base);
    const lossy = run([...base, '--skip-cold-experts', '0.3']);
    expect(lossless.residency.experts.skipped).toBe(0);
    expect(lossy.lossy).toMatchObject({ experts_used: null, skip_cold_experts: 0.3 });
    const x = lossy.residency.experts;
    expect(x.skipped).toBeGreaterThan(0);
    expect(x.skipped_mean_weight).toBeGreaterThan(0);
    expect(x.skipped_mean_weight).toBeLessThan(0.3);
    expect(x.read_bytes).toBeLessThan(lossless.residency.experts.read_bytes);
    expect(lossy.residency.limit_hits_decode).toBe(0);
  });

  it('bench runs each knob beside the lossless run, with its teacher-forced agreement; a knob that changes nothing agrees on every token', () => {
    const reports = join(dir, 'bench');
    // --experts-used 4 is the model's own count: the same model, so teacher forcing must agree everywhere.
    const r = runCli(['bench', model, '--ram', CAP, '--policies', 'stream', '--tokens', '12', '--no-resident', '--experts-used', '4', '--skip-cold-experts', '0.3', '--json', '--report-dir', reports], { timeoutMs: 600_000 });
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout).results as Record<string, any>[];
    expect(rows.map((x) => x.policy)).toEqual(['stream', 'stream+experts-used=4', 'stream+skip-cold=0.3']);
    expect(rows[0]!.lossy).toBeUndefined();
    const same = rows[1]!;
    expect(same.lossy.agreement).toEqual({ positions: 12, same: 12, share: 1 });
    expect(same.identical_tokens).toBe(true);
    const skip = rows[2]!;
    expect(skip.experts_skipped).toBeGreaterThan(0);
    expect(skip.lossy.agreement.positions).toBe(12);
    expect(skip.agreement).toBeGreaterThanOrEqual(0);
    expect(skip.agreement).toBeLessThanOrEqual(1);
    for (const f of readdirSync(reports)) {
      const report = JSON.parse(readFileSync(join(reports, f), 'utf8'));
      expect(validateReport(report), `${f}: ${JSON.stringify(validateReport.errors)}`).toBe(true);
    }
  });
});
