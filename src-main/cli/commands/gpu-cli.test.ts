// The VRAM tier through the CLI on a Vulkan device (lavapipe in CI): `plan --vram` on a model
// larger than its RAM budget shows three tiers, each with its bytes, and a predicted speed; `run` with
// the same budget allocates no more on the device than the budget (llama.cpp's own ledger,
// measured after load); an MoE whose experts do not fit puts its dense part on the device and
// keeps the experts in RAM; a budget the device does not have, or a device that does not exist,
// is refused before anything loads; a software device is never used unless named.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Ajv from 'ajv';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { runCommand } from './run-command.test-util.js';
import { validateReport } from '../report-schema.test-util.js';
import { synthesize } from '../../synth/synthesize.js';
import { vulkanSkip } from '../../native/vulkan.test-util.js';
import { UsageError } from '../../shared/errors.js';
import { PLAN_JSON_SCHEMA } from '../../shared/plan/plan-schema.js';
import { EXPERT_TENSOR_PATTERN } from '../../shared/plan/place-vram.js';
import type { MemoryPlan } from '../../shared/plan/plan-types.js';
import type { RunReport } from '../../shared/report/report-types.js';
import { command as plan } from './plan.js';
import { command as run } from './run.js';

const vk = vulkanSkip();
const validatePlan = new Ajv({ allErrors: true, strict: false }).compile(PLAN_JSON_SCHEMA);
const MiB = 1024 * 1024;
let dir = '';
let dense = '';
let moe = '';
const gpu = (): string => String(vk.device?.index ?? 0);
// A small shape: ctx 256 and micro-batch 32 keep the compute buffers and the RAM minimum small.
const shape = ['--ctx', '256', '--batch', '32', '--disk-bw', '1G'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ramforge-gpu-cli-'));
  dense = join(dir, 'l40.gguf');
  moe = join(dir, 'moe.gguf');
  // 86 MiB, its attention matrices too small to stream (they stay resident): larger than the
  // 90 MiB of RAM below once its fixed costs are paid, with 24 MiB of VRAM as the third tier.
  await synthesize({ arch: 'llama', preset: 'tiny', type: 'Q4_0', seed: 1, out: dense, overrides: { nLayer: 40, nEmbd: 512, nFf: 1536 } });
  // Mixtral layout, 26 MiB of experts beside 5 MiB of head and dense weights.
  await synthesize({ arch: 'llama', preset: 'tiny', type: 'Q4_0', seed: 5, out: moe, overrides: { nLayer: 4, nFf: 1536, nExpert: 8, nExpertUsed: 2 } });
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(vk.skip)('the VRAM tier in plan and run', () => {
  it('plan --vram on a model larger than its RAM budget: three tiers with their bytes and a predicted tok/s', async () => {
    expect(vk.why, vk.why).toBe('');
    const { code, stdout } = await runCommand(plan, [dense, '--ram', '90M', '--vram', '24M', '--gpu', gpu(), ...shape, '--json']);
    expect(code).toBe(0);
    const p = JSON.parse(stdout) as MemoryPlan;
    expect(validatePlan(p), JSON.stringify(validatePlan.errors)).toBe(true);
    expect(p.model.tensorBytes).toBeGreaterThan(96 * MiB * 0.85);
    expect(p.verdict).toBe('out-of-core');
    expect(p.gpu).toMatchObject({ device: 'Vulkan0', mode: 'layers', outputOnDevice: true });
    expect(p.tiers.vram.bytes).toBeGreaterThan(0);
    expect(p.quantities.pinnedBytes.value).toBeGreaterThan(0);
    expect(p.quantities.bytesReadPerToken.value).toBeGreaterThan(0);
    expect(p.quantities.vramUsedBytes.value).toBeLessThanOrEqual(24 * MiB);
    expect(p.quantities.predictedDecodeTokS.value).toBeGreaterThan(0);
    const text = await runCommand(plan, [dense, '--ram', '90M', '--vram', '24M', '--gpu', gpu(), ...shape]);
    expect(text.stdout).toMatch(/Tiers\n {2}VRAM .* of weights on Vulkan0 .*\n {2}RAM .* locked\n {2}storage .* streamed per token → ≈ [\d.]+ tok\/s predicted/);
  });

  it('run with the same budget: the device holds no more than the budget (measured after load), and the report says so', async () => {
    expect(vk.why, vk.why).toBe('');
    const out = join(dir, 'dense.json');
    const { code } = await runCommand(run, [dense, '--ram', '90M', '--vram', '24M', '--gpu', gpu(), ...shape, '-p', 'Once upon a time', '-n', '4', '--temperature', '0', '-q', '--report-json', out]);
    expect(code).toBe(0);
    const r = JSON.parse(readFileSync(out, 'utf8')) as RunReport;
    expect(validateReport(r), JSON.stringify(validateReport.errors)).toBe(true);
    expect(r.generation?.generated_tokens).toBe(4);
    const g = r.gpu!;
    expect(g).toMatchObject({ device: 'Vulkan0', budget_bytes: 24 * MiB, within_budget: true });
    expect(g.measured_bytes).toBeGreaterThan(0);
    expect(g.measured_bytes!).toBeLessThanOrEqual(24 * MiB);
    // The plan's figure is llama.cpp's within 2 %.
    expect(Math.abs(g.measured_bytes! - g.planned_bytes!) / g.planned_bytes!).toBeLessThan(0.02);
    console.log(`run --vram 24 MiB on ${vk.device?.name}: measured ${g.measured_bytes} B on the device (weights ${g.model_bytes}, KV ${g.context_bytes}, compute ${g.compute_bytes}), planned ${g.planned_bytes}`);
  });

  it('an MoE with --vram below its experts: the dense part on the device, the experts in RAM', async () => {
    expect(vk.why, vk.why).toBe('');
    const { stdout } = await runCommand(plan, [moe, '--ram', '1G', '--vram', '12M', '--gpu', gpu(), ...shape, '--json']);
    const p = JSON.parse(stdout) as MemoryPlan;
    expect(p.moe!.quantities.expertBytes.value).toBeGreaterThan(12 * MiB);
    expect(p.gpu).toMatchObject({ mode: 'dense-first', gpuLayers: 5, cpuTensors: [EXPERT_TENSOR_PATTERN] });
    const out = join(dir, 'moe.json');
    const { code } = await runCommand(run, [moe, '--ram', '1G', '--vram', '12M', '--gpu', gpu(), ...shape, '-p', 'Once upon a time', '-n', '4', '--temperature', '0', '-q', '--report-json', out]);
    expect(code).toBe(0);
    const r = JSON.parse(readFileSync(out, 'utf8')) as RunReport;
    expect(r.gpu).toMatchObject({ gpu_layers: 5, cpu_tensors: [EXPERT_TENSOR_PATTERN], within_budget: true });
    expect(r.gpu!.measured_bytes!).toBeLessThanOrEqual(12 * MiB);
    // With room beyond the dense part, the experts of the last layers go too; the rest stay on the CPU.
    const out2 = join(dir, 'moe20.json');
    expect((await runCommand(run, [moe, '--ram', '1G', '--vram', '20M', '--gpu', gpu(), ...shape, '-p', 'Once upon a time', '-n', '4', '--temperature', '0', '-q', '--report-json', out2])).code).toBe(0);
    const r2 = JSON.parse(readFileSync(out2, 'utf8')) as RunReport;
    expect(r2.plan?.gpu?.expertLayers).toEqual([2, 3]);
    expect(r2.gpu).toMatchObject({ cpu_tensors: ['^blk\\.(0|1)' + EXPERT_TENSOR_PATTERN], within_budget: true });
    expect(r2.gpu!.measured_bytes!).toBeLessThanOrEqual(20 * MiB);
  });

  it('run --gpu --vram without --ram: the plan for the machine\'s RAM places the layers, and the run offloads them', async () => {
    const { stdout } = await runCommand(plan, [dense, '--ram', String(totalmem()), '--vram', '40M', '--gpu', gpu(), ...shape, '--json']);
    const p = JSON.parse(stdout) as MemoryPlan;
    expect(p.gpu?.gpuLayers ?? 0, 'the plan puts layers on the device').toBeGreaterThan(0);
    const out = join(dir, 'no-ram.json');
    const { code } = await runCommand(run, [dense, '--vram', '40M', '--gpu', gpu(), ...shape, '-p', 'Once upon a time', '-n', '4', '--temperature', '0', '-q', '--report-json', out]);
    expect(code).toBe(0);
    const r = JSON.parse(readFileSync(out, 'utf8')) as RunReport;
    expect(r.config.ram_bytes).toBeNull();
    expect(r.gpu?.gpu_layers).toBe(p.gpu?.gpuLayers);
  });

  it('refused before load: a budget larger than the device has free, a device that does not exist', async () => {
    expect(vk.why, vk.why).toBe('');
    const free = vk.device!.memoryFree;
    await expect(runCommand(run, [dense, '--vram', String(free + 1), '--gpu', gpu(), '-p', 'x', '-n', '1', '-q'])).rejects.toThrow(/is more than .* has free/);
    await expect(runCommand(run, [dense, '--vram', String(free + 1), '--gpu', gpu(), '-p', 'x', '-n', '1', '-q'])).rejects.toBeInstanceOf(UsageError);
    await expect(runCommand(run, [dense, '--gpu', 'no-such-gpu', '-p', 'x', '-n', '1', '-q'])).rejects.toThrow(/no GPU matches 'no-such-gpu'/);
  });

  it('a software device is used only when named; --gpu none offloads nothing', async () => {
    expect(vk.why, vk.why).toBe('');
    for (const extra of [['--gpu', 'none'], ...(vk.device!.type === 'cpu' ? [[]] : [])]) {
      const out = join(dir, `cpu${extra.length}.json`);
      const { code } = await runCommand(run, [moe, '--ram', '1G', ...extra, ...shape, '-p', 'Once upon a time', '-n', '2', '--temperature', '0', '-q', '--report-json', out]);
      expect(code).toBe(0);
      const r = JSON.parse(readFileSync(out, 'utf8')) as RunReport;
      expect(r.gpu).toBeUndefined();
      expect(r.plan?.gpu).toBeUndefined();
    }
  });
});
