// Routing traces through the CLI a user runs, on a synthetic model of the published gemma-4
// trace's shape (30 MoE layers, 128 experts, 6 used): the trace's choices replace the routers'
// (what the run records is the trace), a run's own recording replayed gives its tokens again,
// `off` and `stream` give the same tokens on a replayed trace under a cap with the expert
// cache's reads set against Belady's optimum, and a trace that does not fit is exit 2.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliBuiltOrSkip, runCli } from './built-cli.test-util.js';
import { validateReport } from './report-schema.test-util.js';
import { detectCgroup } from '../supervisor/index.js';
import { parseRouteTrace } from '../shared/moe/route-trace.js';
import { traceHitRate, traceRouting } from '../shared/moe/trace-routing.js';

const TRACES = join(__dirname, '..', '..', 'resources', 'traces');
const GEMMA = join(TRACES, 'gemma-4-26b-a4b.route.csv');
const built = cliBuiltOrSkip('the routing trace tests');
const capped = detectCgroup();
if (!capped.usable && process.env.CI !== 'true') console.warn(`skipping the capped routing trace test: ${capped.reason}`);

let dir = '';
let model = '';
beforeAll(() => {
  if (!built) return;
  dir = mkdtempSync(join(tmpdir(), 'ramforge-routing-trace-'));
  model = join(dir, 'g30.gguf');
  const s = runCli(['synth', '--arch', 'qwen3moe', '--preset', 'tiny', '--layers', '30', '--experts', '128', '--experts-used', '6', '--expert-ff', '64', '--quiet', '--out', model]);
  expect(s.code, s.stderr).toBe(0);
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function run(extra: string[]): Record<string, any> {
  const path = join(dir, `r-${Math.random().toString(36).slice(2)}.json`);
  const r = runCli(['run', model, '-p', 'Once upon a time', '-n', '12', '--temperature', '0', '--quiet', '--report-json', path, ...extra], { timeoutMs: 300_000 });
  expect(r.code, r.stderr).toBe(0);
  const report = JSON.parse(readFileSync(path, 'utf8'));
  expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
  return report;
}

describe.skipIf(!built)('routing traces', () => {
  it("replays a published trace: the run's routing, as recorded, is the trace's, decode step by decode step", () => {
    const out = join(dir, 'replayed.csv');
    const r = run(['--policy', 'off', '--routing-trace', GEMMA, '--routing-trace-out', out]);
    const trace = parseRouteTrace(readFileSync(GEMMA, 'utf8'));
    const rec = parseRouteTrace(readFileSync(out, 'utf8'));
    expect([rec.layerIds.length, rec.experts, rec.used]).toEqual([30, 128, 6]);
    // 11 decode passes after the prompt (the last sampled token is never decoded).
    expect(rec.decodeSteps).toBe(11);
    expect(Array.from(rec.decode)).toEqual(Array.from(trace.decode.subarray(0, rec.decode.length)));
    // The prompt's first token, on every layer but the last (computed for the prompt's last token only).
    expect(Array.from(rec.prompt.subarray(0, 29 * 6))).toEqual(Array.from(trace.prompt.subarray(0, 29 * 6)));
    expect(Array.from(rec.prompt.subarray(29 * 6, 30 * 6))).toEqual([-1, -1, -1, -1, -1, -1]);
    expect(r.residency.routing.trace).toBe(GEMMA);
    expect(r.residency.routing.replaced_selections).toBeGreaterThanOrEqual(11 * 30);
    expect(r.residency.routing.decode_wraps).toBe(0);
  });

  it("a run's own routing, recorded and replayed, gives the run's tokens again", () => {
    const out = join(dir, 'own.csv');
    const first = run(['--policy', 'off', '--routing-trace-out', out]);
    const again = run(['--policy', 'off', '--routing-trace', out]);
    expect(again.generation.token_ids).toEqual(first.generation.token_ids);
    // A different routing changes the answer: the replay is what decides it.
    const other = run(['--policy', 'off', '--routing-trace', GEMMA]);
    expect(other.generation.token_ids).not.toEqual(first.generation.token_ids);
  });

  it('refuses a trace of another shape, a dense model and a folder that does not exist, with exit 2', () => {
    const oss = runCli(['run', model, '-p', 'hi', '-n', '2', '-q', '--routing-trace', join(TRACES, 'gpt-oss-120b-k2.route.csv')]);
    expect(oss.code).toBe(2);
    expect(oss.stderr).toContain('the routing trace is for 36 MoE layers × 128 experts, 2 per token; the model has 30 MoE layers × 128 experts, 6 per token');
    const dense = join(dir, 'dense.gguf');
    expect(runCli(['synth', '--preset', 'tiny', '--quiet', '--out', dense]).code).toBe(0);
    const d = runCli(['run', dense, '-p', 'hi', '-n', '2', '-q', '--routing-trace', GEMMA]);
    expect(d.code).toBe(2);
    expect(d.stderr).toMatch(/routing traces are for mixtures of experts/);
    const nowhere = runCli(['run', model, '-p', 'hi', '-n', '2', '-q', '--routing-trace-out', join(dir, 'no', 'such', 'x.csv')]);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toMatch(/does not exist/);
  });

  it.skipIf(!capped.usable && process.env.CI !== 'true')('bench under a cap: off, stream and the resident run give the same tokens on the trace, and the expert cache reads at most 1.25× the optimum', () => {
    const b = runCli(['bench', model, '--ram', '200M', '--policies', 'off,stream', '--tokens', '12', '--routing-trace', GEMMA, '--resident', '--read-ahead-ab', '--json', '--report-dir', dir], { timeoutMs: 600_000 });
    expect(b.code, b.stderr).toBe(0);
    const rows = JSON.parse(b.stdout).results as Record<string, any>[];
    expect(rows.map((r) => r.policy)).toEqual(['off', 'stream', 'stream-no-read-ahead', 'resident']);
    expect(rows.map((r) => r.identical_tokens)).toEqual([true, true, true, true]);
    // The A/B: without read-ahead nothing is predicted or read ahead.
    expect(rows[2]!.experts.prefetches).toBe(0);
    expect(rows[2]!.prefetch_issued_share).toBeNull();
    const stream = JSON.parse(readFileSync(join(dir, 'bench-209715200-stream.json'), 'utf8'));
    expect(validateReport(stream), JSON.stringify(validateReport.errors)).toBe(true);
    const x = stream.residency.experts;
    const g = stream.residency.routing;
    expect(g.trace).toBe(GEMMA);
    expect(g.slots_per_layer).toBe(x.slots_per_layer);
    expect(g.slots_per_layer).toBeLessThan(128);
    expect(g.optimal_read_bytes).toBeGreaterThan(0);
    // Belady's optimum is a floor: no cache of the same size reads less.
    expect(x.read_bytes).toBeGreaterThanOrEqual(g.optimal_read_bytes);
    expect(g.read_over_optimal).toBeLessThanOrEqual(1.25);
    expect(rows[1]!.expert_read_over_optimal).toBe(g.read_over_optimal);
    // The replayed routing is not what the hidden state predicts: read-ahead measures that and stops.
    expect(x.prefetch_issued_share).toBeLessThan(0.5);
    expect(stream.residency.limit_hits_decode).toBe(0);
    expect(stream.cgroup.oom_kills ?? 0).toBe(0);
    // The stream rows' plan predicts with this schedule's compute, measured on the model's shadow before the runs.
    expect(stream.plan.quantities.predictedDecodeTokS.formula).toMatch(/on the model's shadow/);
    expect(rows[1]!.plan_decode_tok_s).toBe(stream.plan.quantities.predictedDecodeTokS.value);
    expect(b.stderr).toMatch(/measuring the compute of the stream schedule on the model's shadow/);
    // The resident run holds the model without the cap: nothing read per token.
    expect(rows[3]!.bytes_read_per_token).toBe(0);
    // The physical limit, measured in the same command: the device's rate on this file (direct
    // reads scattered over it), the rate the expert reads got while they ran, and each capped
    // run's seconds per token against max(the resident run's, its reads at the device's rate).
    const all = JSON.parse(b.stdout);
    expect(all.device_read_rate_bytes_per_s).toBeGreaterThan(0);
    expect(all.device_read_rate_source).toMatch(/^measured with .* scattered across /);
    expect(rows[1]!.expert_read_rate_bytes_per_s).toBeGreaterThan(0);
    expect(x.decode_expert_read_rate_bytes_per_s).toBe(rows[1]!.expert_read_rate_bytes_per_s);
    const compute = 1 / rows[3]!.decode_tok_s;
    const reads = rows[1]!.bytes_read_per_token / all.device_read_rate_bytes_per_s;
    expect(rows[1]!.compute_s_per_token).toBeCloseTo(compute, 9);
    expect(rows[1]!.read_s_per_token).toBeCloseTo(reads, 9);
    expect(rows[1]!.vs_limit).toBeCloseTo(1 / rows[1]!.decode_tok_s / Math.max(compute, reads), 9);
    expect(rows[3]!.vs_limit).toBeUndefined();
  });
});

describe.skipIf(!built)('plan --measure-compute', () => {
  it("measures the stream schedule's compute on the model's shadow (or finds it cached) and predicts with it; a later plan of the same schedule reads it back", () => {
    const args = ['plan', model, '--ram', '200M', '--routing-trace', GEMMA, '--json'];
    const m = runCli([...args, '--measure-compute'], { timeoutMs: 300_000 });
    expect(m.code, m.stderr).toBe(0);
    const measured = JSON.parse(m.stdout).quantities.predictedDecodeTokS;
    expect(measured.formula).toMatch(/^1 \/ \(compute [\d.]+ ms \(measured .*on the model's shadow.*\) \+ misses /);
    expect(measured.value).toBeGreaterThan(0);
    const later = runCli(args, { timeoutMs: 120_000 });
    expect(later.code, later.stderr).toBe(0);
    expect(JSON.parse(later.stdout).quantities.predictedDecodeTokS).toEqual(measured);
  });
});

describe.skipIf(!built)('plan --routing-trace', () => {
  it("predicts the expert cache by replaying the trace: LRU's hit rate at the plan's cache, Belady's for the floor", () => {
    const plan = (ram: string): Record<string, any> => {
      const r = runCli(['plan', model, '--ram', ram, '--json', '--routing-trace', GEMMA]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    };
    const routing = traceRouting('gemma', parseRouteTrace(readFileSync(GEMMA, 'utf8')));
    const out = plan('240M');
    const m = out.moe;
    expect(m.routing.source).toBe('trace');
    expect(m.routing.description).toContain('gemma-4-26b-a4b.route.csv');
    expect(m.cacheExpertsPerLayer).toBeLessThan(128);
    expect(m.quantities.hitRate.value).toBeCloseTo(traceHitRate(routing, m.cacheExpertsPerLayer, 'lru', 128), 9);
    expect(m.quantities.floorBytesPerToken.formula).toContain("Belady's optimum");
    // The floor is what the optimum reads: never more than what LRU at the same cache reads.
    expect(m.quantities.floorBytesPerToken.value).toBeLessThanOrEqual(m.quantities.bytesReadPerToken.value);
    // The same plan without the trace predicts from the synthetic skew instead.
    const r = runCli(['plan', model, '--ram', '240M', '--json']);
    expect(JSON.parse(r.stdout).moe.routing.source).toBe('synthetic-skew');
  });
});
