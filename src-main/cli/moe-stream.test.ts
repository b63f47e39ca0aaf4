// Mixtures of experts out of core, through the CLI a user runs: under an enforced cap smaller
// than the file, `stream` serves the experts from its expert cache — tokens identical to plain
// llama.cpp (`off`), no limit hit in decode, and no more read per token than the weights a
// token is routed to — for the Mixtral layout, qwen3moe and qwen2moe (a shared expert), and at
// half the file for the families people run beyond their memory: gpt-oss (MXFP4 experts with
// per-expert biases through ADD_ID), deepseek2 (MLA, a leading dense layer, a shared expert,
// grouped routing), glm4moe, qwen35moe (delta-net layers between full attention ones, gate and up
// fused in one tensor) and gemma4 (fused gate_up, and a per-expert output scale the graph picks
// by expert id after the expert ops: the selection must hold expert ids again by then).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './built-cli.test-util.js';
import { validateReport } from './report-schema.test-util.js';
import { detectCgroup } from '../supervisor/index.js';

const capped = detectCgroup();
if (!capped.usable && process.env.CI !== 'true') console.warn(`skipping the MoE streaming tests: ${capped.reason}`);

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ramforge-moe-stream-'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// Each cap is between the expert cache's minimum and full residency (`ramforge plan` of each).
const LAYOUTS = [
  { name: 'Mixtral layout (llama, 8 experts, 2 used)', synth: ['--arch', 'llama', '--preset', 'small', '--experts', '8', '--layers', '8'], cap: '320M' },
  { name: 'qwen3moe (32 experts, 4 used)', synth: ['--arch', 'qwen3moe', '--preset', 'small'], cap: '460M' },
  // 480M: at 540M the worker, measuring what load left it, holds every expert (nothing to cache).
  { name: 'qwen2moe (16 experts, 4 used, a shared expert)', synth: ['--arch', 'qwen2moe', '--preset', 'small'], cap: '480M' },
  // No cap named: half the file (each about 0.9 GiB).
  { name: 'gpt-oss (MXFP4, 32 experts, 4 used, per-expert biases), half the file', synth: ['--arch', 'gpt-oss', '--preset', 'small', '--type', 'MXFP4'] },
  { name: 'deepseek2 (MLA, 1 dense + 7 MoE layers, 64 experts in 8 groups, 6 used, 1 shared), half the file', synth: ['--arch', 'deepseek2', '--preset', 'small'] },
  { name: 'glm4moe (1 dense + 8 MoE layers, 64 experts, 4 used, 1 shared), half the file', synth: ['--arch', 'glm4moe', '--preset', 'small'] },
  { name: 'qwen35moe (delta-net and full attention layers, fused gate_up, 64 experts, 8 used, 1 shared), half the file', synth: ['--arch', 'qwen35moe', '--preset', 'small'] },
  { name: 'gemma4 (sliding and full layers, fused gate_up, per-expert scales, 64 experts, 8 used), half the file', synth: ['--arch', 'gemma4', '--preset', 'small'] },
];

function run(model: string, policy: string, cap: string, extra: string[] = []): Record<string, any> {
  const path = join(dir, `r-${policy}-${Math.random().toString(36).slice(2)}.json`);
  const r = runCli(['run', model, '-p', 'Once upon a time, in a land far away', '-n', '8', '--temperature', '0', '--policy', policy, '--ram', cap, '--enforce-ram', '--quiet', '--report-json', path, ...extra], { timeoutMs: 300_000 });
  expect(r.code, r.stderr).toBe(0);
  const report = JSON.parse(readFileSync(path, 'utf8'));
  expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
  return report;
}

describe.skipIf(!capped.usable && process.env.CI !== 'true')('a mixture of experts under a cap: the expert cache', () => {
  it.each<{ name: string; synth: string[]; cap?: string }>(LAYOUTS)('$name', ({ synth, cap: named }) => {
    const model = join(dir, `${synth[1]}.gguf`);
    const s = runCli(['synth', ...synth, '--seed', '5', '--quiet', '--out', model]);
    expect(s.code, s.stderr).toBe(0);
    const cap = named ?? String(Math.floor(statSync(model).size / 2));
    const moe = JSON.parse(runCli(['inspect', model, '--json']).stdout).moe as { expertCount: number; activeBytesPerToken: number; layers: unknown[] };
    const off = run(model, 'off', cap);
    const stream = run(model, 'stream', cap);
    expect(stream.generation.token_ids).toEqual(off.generation.token_ids);
    const x = stream.residency.experts;
    expect(x, 'the stream run served the experts from an expert cache').not.toBeNull();
    expect(x.slots_per_layer).toBeGreaterThan(0);
    expect(x.slots_per_layer).toBeLessThan(moe.expertCount);
    expect(stream.residency.schedule.expertCache.slotsPerLayer).toBe(x.slots_per_layer);
    // The prompt's micro-batch routes to more experts than a layer's cache holds: staged.
    expect(x.staged).toBeGreaterThan(0);
    // ... and the experts it read are kept in the slots for decode (copied, not read again);
    // the tokens above say the copies are right.
    expect(x.promoted).toBeGreaterThan(0);
    expect(x.routed).toBeGreaterThan(0);
    expect(x.decode_prediction_accuracy).toBeGreaterThanOrEqual(0);
    expect(x.decode_prediction_accuracy).toBeLessThanOrEqual(1);
    expect(stream.residency.limit_hits_decode).toBe(0);
    expect(stream.residency.bytes_read_per_token).toBeLessThanOrEqual(moe.activeBytesPerToken);
    expect(stream.cgroup.oom_kills ?? 0).toBe(0);
    // By default the slots hold the plain layout, as plain llama.cpp under the cap computes.
    expect(x.repacked_tensors).toBe(0);
    // The scheduler stops where the expert cache must act: about once per MoE layer and pass
    // (the router's node), a few more in a layer's first pass, not at every node between the
    // router and the expert ops (each stop is a barrier of the compute threads).
    const passes = 1 + stream.generation.token_ids.length;
    expect(stream.residency.counters.splits).toBeLessThanOrEqual(3 * moe.layers.length * passes);
    // Plain llama.cpp has no expert cache (how much it reads depends on how near the cap is to the file).
    expect(off.residency.experts ?? null).toBeNull();
    rmSync(model);
  });
});

describe.skipIf(!capped.usable && process.env.CI !== 'true')('a mixture of experts under a cap it fits in: stream costs nothing', () => {
  it('bench off,stream: both repacked for the CPU kernels, stream without the eval callback (no split) and no expert cache, same tokens, no OOM kill', () => {
    const model = join(dir, 'fits-qwen3moe.gguf');
    const s = runCli(['synth', '--arch', 'qwen3moe', '--preset', 'small', '--seed', '5', '--quiet', '--out', model]);
    expect(s.code, s.stderr).toBe(0);
    const reports = join(dir, 'fits-reports');
    const r = runCli(['bench', model, '--ram', '2G', '--policies', 'off,stream', '--tokens', '4', '--report-dir', reports], { timeoutMs: 300_000 });
    expect(r.code, r.stderr).toBe(0);
    const read = (policy: string) => JSON.parse(readFileSync(join(reports, `bench-${2 * 1024 ** 3}-${policy}.json`), 'utf8'));
    const off = read('off');
    const stream = read('stream');
    for (const x of [off, stream]) expect(validateReport(x), JSON.stringify(validateReport.errors)).toBe(true);
    expect(stream.plan.verdict).toBe('fits');
    expect(off.config.repack).toBe(true);
    expect(stream.config.repack).toBe(true);
    expect(stream.generation.token_ids).toEqual(off.generation.token_ids);
    expect(stream.residency.schedule.units).toBe(0);
    expect(stream.residency.schedule.expertCache).toBeNull();
    expect(stream.residency.counters.splits).toBe(0);
    for (const x of [off, stream]) expect(x.cgroup.oom_kills ?? 0).toBe(0);
  });
});

// ggml-cpu repacks Q4_0 for AVX2 (and ARM's dot-product extensions); elsewhere there is no layout to use.
const repackable = (() => {
  try {
    return /\bavx2\b|\basimddp\b/.test(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return false;
  }
})();
if (!repackable) console.warn('the expert slots repacked: this CPU has no repacked Q4_0 layout in ggml-cpu, so only the run is checked');

describe.skipIf(!capped.usable && process.env.CI !== 'true')('a mixture of experts under a cap, --repack', () => {
  it('the expert cache holds its slots in the CPU kernels\' repacked layout, under the cap, without a limit hit in decode', () => {
    const model = join(dir, 'repack-qwen3moe.gguf');
    const s = runCli(['synth', '--arch', 'qwen3moe', '--preset', 'small', '--seed', '5', '--quiet', '--out', model]);
    expect(s.code, s.stderr).toBe(0);
    const stream = run(model, 'stream', '460M', ['--repack']);
    const x = stream.residency.experts;
    expect(x, 'the stream run served the experts from an expert cache').not.toBeNull();
    expect(stream.config.repack, 'the load itself cannot repack a model that does not fit').toBe(false);
    if (repackable) expect(x.repacked_tensors).toBeGreaterThan(0);
    expect(stream.generation.token_ids.length).toBe(8);
    expect(stream.residency.limit_hits_decode).toBe(0);
    expect(stream.cgroup.oom_kills ?? 0).toBe(0);
    rmSync(model);
  });
});
