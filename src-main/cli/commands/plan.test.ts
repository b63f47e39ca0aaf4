import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import { command as plan } from './plan.js';
import { UsageError } from '../../shared/errors.js';
import { runCommand, writeSparseModel } from './run-command.test-util.js';
import { PLAN_JSON_SCHEMA } from '../../shared/plan/plan-schema.js';
import type { MemoryPlan } from '../../shared/plan/plan.js';

let dir = '';
let model = '';
let fileBytes = 0;
let tensorBytes = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-plan-'));
  model = join(dir, 'm.gguf');
  // ~1.1 GiB of Q4_0 weights in a sparse file.
  ({ fileBytes, tensorBytes } = await writeSparseModel(model, { arch: 'qwen2', layers: 24, embd: 2048, heads: 16, kvHeads: 4, ff: 8192, vocab: 32000, matType: 2 }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const validate = new Ajv({ allErrors: true, strict: false }).compile(PLAN_JSON_SCHEMA);

async function planJson(argv: string[]): Promise<MemoryPlan> {
  const { code, stdout } = await runCommand(plan, [model, '--json', '--disk-bw', '2G/s', ...argv]);
  expect(code).toBe(0);
  const p = JSON.parse(stdout) as MemoryPlan;
  expect(validate(p), JSON.stringify(validate.errors)).toBe(true);
  return p;
}

describe('ramforge plan', () => {
  it('a model twice the cap: part of every layer streams, bytes/token = streamed bytes; ctx and micro-batch chosen for the cap', async () => {
    const p = await planJson(['--ram', String(Math.floor(fileBytes / 2))]);
    expect(p.verdict).toBe('out-of-core');
    expect(p.model.tensorBytes).toBe(tensorBytes);
    expect(p.model.blockCount).toBe(24);
    expect(p.tiers.streamed.layers.length).toBeGreaterThan(0);
    const streamed = p.layers.reduce((a, l) => a + l.streamedBytes, 0);
    expect(streamed).toBeGreaterThan(0);
    expect(p.quantities.bytesReadPerToken.value).toBe(streamed);
    expect(p.stream?.tensors.length).toBeGreaterThan(0);
    // No --ctx/--batch: the model's own context (256 here) and a micro-batch sized to the cap.
    expect(p.input.ctx).toBe(256);
    expect(p.input.ubatch).toBeGreaterThanOrEqual(32);
    expect(p.quantities.predictedDecodeTokS.value).toBeGreaterThan(0);
    expect(p.input.diskBandwidthSource).toBe('--disk-bw');
    expect(p.input.diskBandwidthBytesPerS).toBe(2 * 1024 ** 3);
  });

  it('below the minimum working set: cannot-run with the smallest workable cap, still exit 0', async () => {
    const p = await planJson(['--ram', '200M', '--ctx', '2048']);
    expect(p.verdict).toBe('cannot-run');
    const min = p.quantities.minimumRamBytes.value as number;
    expect(min).toBeGreaterThan(200 * 1024 ** 2);
    expect(p.reason).toMatch(/smallest cap that runs is/);
    const ok = await planJson(['--ram', String(min), '--ctx', '2048']);
    expect(ok.verdict).toBe('out-of-core');
  });

  it('fits when the cap is large; --ctx and --prefetch-depth reach the plan', async () => {
    const p = await planJson(['--ram', '8G', '--ctx', '1024', '--prefetch-depth', '3']);
    expect(p.verdict).toBe('fits');
    expect(p.input.ctx).toBe(1024);
    expect(p.input.prefetchDepth).toBe(3);
    expect(p.quantities.kvBytesPerLayer.value).toBe(2 * 4 * 128 * 1024 * 2);
  });

  it('human output shows the verdict, formulas and the tier table', async () => {
    const { code, stdout } = await runCommand(plan, [model, '--ram', String(Math.floor(fileBytes / 2)), '--disk-bw', '1G']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Verdict: OUT-OF-CORE/);
    expect(stdout).toMatch(/2 × n_kv_heads 4 × head_dim 128 × ctx 256 × 2 B/);
    expect(stdout).toMatch(/0–23 +streamed +24 layers .* of it streamed/);
    expect(stdout).toMatch(/tensors through a .* window; every other weight is locked in RAM/);
    expect(stdout).toMatch(/bytes read from storage/);
  });

  it('bad input exits 2', async () => {
    const e1 = await runCommand(plan, [model]).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(UsageError);
    expect((e1 as UsageError).message).toMatch(/needs --ram/);
    const e2 = await runCommand(plan, [model, '--ram', '8G', '--disk-bw', 'fast']).catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(UsageError);
    const e3 = await runCommand(plan, [join(dir, 'missing.gguf'), '--ram', '8G']).catch((e: unknown) => e);
    expect(e3).toBeInstanceOf(UsageError);
    expect((e3 as UsageError).message).toMatch(/no such file/);
    const e4 = await runCommand(plan, [model, '--ram', '8G', '--ctx', '0', '--disk-bw', '1G']).catch((e: unknown) => e);
    expect(e4).toBeInstanceOf(UsageError);
    await expect(runCommand(plan, [model, '--ram', '8Q'])).rejects.toThrow(/unknown unit/);
  });
});
