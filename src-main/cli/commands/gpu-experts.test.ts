// The expert cache's VRAM tier on a real Vulkan device (lavapipe in CI): a mixture of experts
// larger than its RAM budget, with a VRAM budget that holds its dense part and more, is planned
// with expert slots in VRAM for every layer; the run computes the experts on the device from
// those slots (uploaded from the RAM slots, read from storage first where those miss), reports
// the routed experts found in each tier, and agrees with the CPU-only run's greedy tokens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Ajv from 'ajv';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from '../args.js';
import { runCommand } from './run-command.test-util.js';
import { validateReport } from '../report-schema.test-util.js';
import { openModelInput } from '../model-input.js';
import { loadParams, prepareRun } from '../run-config.js';
import { synthesize } from '../../synth/synthesize.js';
import { vulkanSkip } from '../../native/vulkan.test-util.js';
import { runOnce } from '../../worker/run-once.js';
import { PLAN_JSON_SCHEMA } from '../../shared/plan/plan-schema.js';
import { EXPERT_TENSOR_PATTERN } from '../../shared/plan/place-vram.js';
import type { MemoryPlan } from '../../shared/plan/plan-types.js';
import type { RunReport } from '../../shared/report/report-types.js';
import { command as plan } from './plan.js';
import { command as run } from './run.js';

const vk = vulkanSkip();
const validatePlan = new Ajv({ allErrors: true, strict: false }).compile(PLAN_JSON_SCHEMA);
const PROMPT = 'Once upon a time, in a land far away, there lived';
const GREEDY = { temperature: 0, topK: 0, topP: 1, minP: 0, seed: 1, repeatPenalty: 1, repeatLastN: 0 };
let dir = '';
let model = '';
// 331 MiB of which 318 MiB are experts (Mixtral layout, 16 experts, 2 a token): under 250 MiB of
// RAM (the worker's own ~130 MiB on lavapipe, whose device memory is the process's, included)
// the expert cache runs; 190 MiB of VRAM hold the dense part and slots for every layer.
const budget = (): string[] => ['--ram', '250M', '--vram', '190M', '--gpu', String(vk.device?.index ?? 0), '--ctx', '256', '--batch', '32', '--disk-bw', '1G'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ramforge-gpu-experts-'));
  model = join(dir, 'mix16.gguf');
  await synthesize({ arch: 'llama', preset: 'tiny', type: 'Q4_0', seed: 7, out: model, overrides: { nLayer: 8, nFf: 6144, nExpert: 16, nExpertUsed: 2 } });
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(vk.skip)("the expert cache's VRAM tier", () => {
  it('plan: the dense part of every layer on the device, then expert slots in every layer, and the hit rate of each tier', async () => {
    expect(vk.why, vk.why).toBe('');
    const { code, stdout } = await runCommand(plan, [model, ...budget(), '--json']);
    expect(code).toBe(0);
    const p = JSON.parse(stdout) as MemoryPlan;
    expect(validatePlan(p), JSON.stringify(validatePlan.errors)).toBe(true);
    const g = p.gpu!;
    expect(g.mode).toBe('dense-first');
    expect(g.layers).toHaveLength(8);
    // No layer's experts placed whole: the room left is the cache's.
    expect(g.expertLayers).toEqual([]);
    expect(g.cpuTensors).toEqual([EXPERT_TENSOR_PATTERN]);
    const slots = g.deviceExperts!.slotsPerLayer;
    expect(slots).toBeGreaterThanOrEqual(2);
    expect(slots).toBeLessThan(16);
    expect(g.quantities.usedBytes.value).toBeLessThanOrEqual(190 * 1024 * 1024);
    expect(p.moe!.deviceTier!.slotsPerLayer).toBe(slots);
    expect(p.moe!.deviceTier!.hitRate.value).toBeGreaterThan(0);
    expect(p.moe!.quantities.hitRate.value).toBeGreaterThanOrEqual(p.moe!.deviceTier!.hitRate.value as number);
  });

  it('run: experts computed on the device from its slots, the routed experts found in each tier reported', async () => {
    const out = join(dir, 'run.json');
    const { code } = await runCommand(run, [model, ...budget(), '-p', PROMPT, '-n', '12', '--temperature', '0', '-q', '--report-json', out]);
    expect(code).toBe(0);
    const report = JSON.parse(readFileSync(out, 'utf8')) as RunReport;
    expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
    const x = report.residency!.experts!;
    const t = x.tiers;
    expect(t.device).toBe('Vulkan0');
    expect(t.device_slots_per_layer).toBeGreaterThanOrEqual(2);
    expect(report.residency!.schedule!.expertCache!.device!.slotsPerLayer).toBe(t.device_slots_per_layer);
    // Every tier served some: a token's experts found in VRAM, in RAM, and read from storage.
    expect(t.vram_hits).toBeGreaterThan(0);
    expect(t.storage_reads).toBeGreaterThan(0);
    expect(t.vram_hits + t.ram_hits + t.storage_reads).toBe(x.routed);
    // What VRAM did not hold was uploaded into it from RAM.
    expect(t.uploads).toBeGreaterThan(0);
    expect(t.upload_bytes).toBeGreaterThan(0);
    expect(t.decode_vram_hit_rate).toBeGreaterThan(0);
  });

  it("the same greedy tokens as the CPU-only run: ≥ 90 % of the CPU run's continuation, teacher-forced", async () => {
    const opened = await openModelInput(model);
    const files = opened.shards.map((s) => s.path);
    const generate = { prompt: PROMPT, maxTokens: 32, sampling: GREEDY };
    const cpuFlags = parseArgs([model, '--ram', '250M', '--ctx', '256', '--batch', '32', '--disk-bw', '1G'], run).flags;
    const cpu = await runOnce({ files, load: loadParams(model, cpuFlags, prepareRun(opened, cpuFlags)), generate });
    const g = cpu.generation!;
    expect(g.tokens.length).toBe(32);
    const flags = parseArgs([model, ...budget()], run).flags;
    const prepared = prepareRun(opened, flags);
    const load = loadParams(model, flags, prepared);
    expect(load.offload?.deviceExperts?.slotsPerLayer).toBeGreaterThanOrEqual(2);
    const onGpu = await runOnce({ files, load, generate, gpuEnv: prepared.gpu!.env, teacherForce: { prompt: g.promptTokens, continuation: g.tokens } });
    expect(onGpu.model?.schedule?.expertCache?.device?.name).toBe('Vulkan0');
    const a = onGpu.agreement!;
    const share = a.same / a.positions;
    expect(a.positions).toBe(32);
    console.log(`VRAM expert tier (${vk.device?.name}) vs CPU: ${(share * 100).toFixed(1)} % of ${a.positions} teacher-forced positions agree; free-running: ${onGpu.generation!.tokens.join(',') === g.tokens.join(',') ? 'the same 32 tokens' : 'diverged'}`);
    expect(share).toBeGreaterThanOrEqual(0.9);
  });
});
