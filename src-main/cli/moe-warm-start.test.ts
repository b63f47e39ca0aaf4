// `--expert-warm-start`: the expert cache reads at load, into each layer's slots, the experts
// earlier runs of the same file were routed to most (the routing cache), so decode does not start
// from an empty cache. Through the CLI: a first run records the routing; a second with the flag
// reads them at setup (report experts.warmed), gives the same tokens, and stays under the cap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './built-cli.test-util.js';
import { validateReport } from './report-schema.test-util.js';
import { detectCgroup } from '../supervisor/index.js';

const capped = detectCgroup();
if (!capped.usable && process.env.CI !== 'true') console.warn(`skipping the expert warm-start test: ${capped.reason}`);

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ramforge-moe-warm-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function run(model: string, extra: string[]): Record<string, any> {
  const path = join(dir, `r-${Math.random().toString(36).slice(2)}.json`);
  // 460M: between the expert cache's minimum and full residency (as in moe-stream.test.ts).
  const r = runCli(['run', model, '-p', 'Once upon a time, in a land far away', '-n', '12', '--temperature', '0', '--policy', 'stream', '--ram', '460M', '--enforce-ram', '--quiet', '--report-json', path, ...extra], { timeoutMs: 300_000 });
  expect(r.code, r.stderr).toBe(0);
  const report = JSON.parse(readFileSync(path, 'utf8'));
  expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
  return report;
}

describe.skipIf(!capped.usable && process.env.CI !== 'true')('--expert-warm-start', () => {
  it("reads the earlier runs' most used experts at load, with the same tokens and no limit hit in decode", () => {
    const model = join(dir, 'qwen3moe.gguf');
    const s = runCli(['synth', '--arch', 'qwen3moe', '--preset', 'small', '--seed', '5', '--quiet', '--out', model]);
    expect(s.code, s.stderr).toBe(0);
    // Nothing recorded yet for this new file: the flag finds nothing to read.
    const first = run(model, ['--expert-warm-start']);
    expect(first.residency.experts.warmed).toBe(0);
    const warm = run(model, ['--expert-warm-start']);
    const x = warm.residency.experts;
    expect(x.warmed).toBeGreaterThan(0);
    expect(x.warmed).toBeLessThanOrEqual(x.slots_per_layer * warm.model.n_layers);
    expect(warm.generation.token_ids).toEqual(first.generation.token_ids);
    expect(warm.residency.limit_hits_decode).toBe(0);
    // Off by default: the same file, run again without the flag, starts empty.
    expect(run(model, []).residency.experts.warmed).toBe(0);
  });
});
