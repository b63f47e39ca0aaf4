// `ramforge` as a user runs it: exit codes for bad input, the version line, and runs held to a
// kernel-enforced cap (exit 0 under it, 137 when killed by it, 124 on the enforced timeout),
// leaving no cgroup behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './built-cli.test-util.js';
import { groupsMadeBy } from '../supervisor/support.test-util.js';
import { detectCgroup } from '../supervisor/index.js';
import { validateReport } from './report-schema.test-util.js';
import { packageRoot } from '../node/paths.js';

let dir = '';
let model = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ramforge-cli-'));
  model = join(dir, 'small.gguf');
  // Big enough that a 64 MiB cap cannot hold it, small enough to synthesize in seconds.
  const s = runCli(['synth', '--arch', 'llama', '--preset', 'small', '--type', 'Q4_0', '--seed', '9', '--out', model]);
  expect(s.code, s.stderr).toBe(0);
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});


describe('ramforge CLI basics', () => {
  it('prints the version and the pinned llama.cpp tag', () => {
    const r = runCli(['--version']);
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8'));
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`ramforge ${pkg.version} (llama.cpp ${pkg.llamaCpp.tag})`);
  });

  it('exits 2 with a one-line message for a missing path', () => {
    const r = runCli(['run', join(dir, 'nope.gguf'), '--prompt', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('nope.gguf');
  });

  it('exits 2 with a one-line message for a file that is not GGUF', () => {
    const bad = join(dir, 'notes.txt');
    writeFileSync(bad, 'this is not a model\n'.repeat(100));
    const r = runCli(['run', bad, '--prompt', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.toLowerCase()).toContain('magic');
  });

  it('exits 2 for an unknown flag and names it', () => {
    const r = runCli(['run', model, '--prompt', 'x', '--bogus']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--bogus');
  });

  it('lists every run flag in --help', () => {
    const r = runCli(['run', '--help']);
    expect(r.code).toBe(0);
    for (const f of ['--max-tokens', '--temperature', '--top-k', '--top-p', '--min-p', '--seed', '--repeat-penalty', '--ctx', '--threads', '--chat', '--system', '--no-mmap', '--no-repack', '--tokens-json', '--profile']) {
      expect(r.stdout.replace('--[no-]', '--')).toMatch(new RegExp(f.replace('--no-', '--(no-)?')));
    }
  });

  it('writes a report that validates against the schema, with --profile on stderr', () => {
    const report = join(dir, 'r.json');
    const r = runCli(['run', model, '-p', 'Hello', '-n', '6', '--temperature', '0', '--profile', '--report-json', report, '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/decode\s+6 tokens, [\d.]+ tok\/s/);
    const validate = validateReport;
    const doc = JSON.parse(readFileSync(report, 'utf8'));
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    expect(doc.outcome).toEqual({ status: 'ok', exit_code: 0, message: null });
    expect(doc.generation.token_ids).toHaveLength(6);
  });
});

const capped = detectCgroup();
// In CI the machine has a writable memory cgroup: these must run there (and fail if it is
// missing); elsewhere they skip with the reason.
if (!capped.usable && process.env.CI !== 'true') console.warn(`skipping the enforced-cap CLI tests: ${capped.reason}`);
describe.skipIf(!capped.usable && process.env.CI !== 'true')('ramforge run under an enforced cap', () => {
  it('holds a model larger than the cap: exit 0, peak ≤ limit, limit printed exactly', () => {
    const report = join(dir, 'capped.json');
    const limit = 96 * 1024 * 1024;
    const r = runCli(['run', model, '-p', 'Once upon a time', '-n', '8', '--temperature', '0', '-c', '256', '--ram', String(limit), '--enforce-ram', '--memory-report', '--report-json', report, '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(String(limit));
    const doc = JSON.parse(readFileSync(report, 'utf8'));
    expect(doc.cgroup.limit_bytes).toBe(limit);
    expect(doc.cgroup.peak_bytes).toBeLessThanOrEqual(limit);
    expect(doc.outcome.status).toBe('ok');
    expect(groupsMadeBy(r.pid)).toEqual([]);
  });

  it('a cap below the minimum working set is refused before anything loads: exit 2, the smallest cap named, no cgroup made', () => {
    const r = runCli(['run', model, '-p', 'Once upon a time', '-n', '8', '--ram', '24M', '--enforce-ram']);
    expect(r.code, r.stderr).toBe(2);
    const m = /below the smallest cap that runs this model .*: [\d.]+ \w+ \(--ram (\d+)\)/.exec(r.stderr);
    expect(m, r.stderr).not.toBeNull();
    expect(r.stderr).toMatch(/Nothing was loaded/);
    expect(r.stdout).toBe('');
    expect(groupsMadeBy(r.pid)).toEqual([]);
    // The named cap does run.
    const ok = runCli(['run', model, '-p', 'Once upon a time', '-n', '4', '--ram', m![1]!, '--enforce-ram', '--quiet']);
    expect(ok.code, ok.stderr).toBe(0);
  });

  it('--force below the working set runs anyway and is an OOM kill: exit 137, said so, no cgroup left', () => {
    const r = runCli(['run', model, '-p', 'Once upon a time', '-n', '8', '--ram', '24M', '--enforce-ram', '--force', '--no-mmap', '--quiet']);
    expect(r.code, r.stderr).toBe(137);
    expect(r.stderr).toMatch(/killed by the memory cap \(\d+ OOM kills?\)/);
    expect(groupsMadeBy(r.pid)).toEqual([]);
  });

  it('--enforce-timeout 1 on a long generation: exit 124, timeout, no cgroup left', () => {
    const r = runCli(['run', model, '-p', 'Once upon a time', '-n', '100000', '--ctx', '8192', '--ram', '2G', '--enforce-ram', '--enforce-timeout', '1', '--quiet']);
    expect(r.code, r.stderr).toBe(124);
    expect(r.stderr).toContain('timeout');
    expect(groupsMadeBy(r.pid)).toEqual([]);
  });
});
