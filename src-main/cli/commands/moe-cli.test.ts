// `inspect` and `plan` on a mixture of experts: the MoE figures in text and in schema-valid JSON.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import { command as inspect } from './inspect.js';
import { command as plan } from './plan.js';
import { runCommand, writeSparseModel } from './run-command.test-util.js';
import { INSPECT_JSON_SCHEMA } from '../../shared/gguf/inspect-schema.js';
import { PLAN_JSON_SCHEMA } from '../../shared/plan/plan-schema.js';
import type { InspectReport } from '../../shared/gguf/inspect-report.js';
import type { MemoryPlan } from '../../shared/plan/plan.js';

let dir = '';
let model = '';
let fileBytes = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-moe-cli-'));
  model = join(dir, 'moe.gguf');
  // The Mixtral layout: 16 experts of which 2 route, about 1.2 GiB of Q4_0 in a sparse file.
  ({ fileBytes } = await writeSparseModel(model, { arch: 'llama', layers: 16, embd: 1024, heads: 16, kvHeads: 4, ff: 2816, vocab: 32000, matType: 2, experts: { count: 16, used: 2, skew: 0.35 } }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ajv = new Ajv({ allErrors: true, strict: false });
const validInspect = ajv.compile(INSPECT_JSON_SCHEMA);
const validPlan = ajv.compile(PLAN_JSON_SCHEMA);

describe('inspect a mixture of experts', () => {
  it('--json: experts per layer, used per token, bytes per expert, dense and active bytes', async () => {
    const { code, stdout } = await runCommand(inspect, [model, '--json']);
    expect(code).toBe(0);
    const r = JSON.parse(stdout) as InspectReport;
    expect(validInspect(r), JSON.stringify(validInspect.errors)).toBe(true);
    const m = r.moe!;
    expect(m.expertCount).toBe(16);
    expect(m.expertUsedCount).toBe(2);
    expect(m.expertSharedCount).toBe(0);
    expect(m.expertFeedForwardLength).toBe(2816);
    expect(m.layers).toHaveLength(16);
    // Q4_0: 18 bytes per 32 values; an expert is its gate, up and down slices.
    expect(m.bytesPerExpert).toBe((3 * 1024 * 2816 * 18) / 32);
    expect(m.expertBytes).toBe(16 * 16 * m.bytesPerExpert);
    expect(m.denseBytes + m.expertBytes).toBe(r.tensorBytes);
    expect(m.activeBytesPerToken).toBeLessThan(r.tensorBytes / 4);
    expect(m.routerSkew).toBeCloseTo(0.35, 6);
  });

  it('text: a Mixture of experts section', async () => {
    const { stdout } = await runCommand(inspect, [model]);
    expect(stdout).toMatch(/Mixture of experts/);
    expect(stdout).toMatch(/experts per layer +16 in 16 of 16 layers, each 2816 wide/);
    expect(stdout).toMatch(/used per token +2 per layer/);
    expect(stdout).toMatch(/active per token/);
  });

  it('a dense model reports moe: null', async () => {
    const dense = join(dir, 'dense.gguf');
    await writeSparseModel(dense, { arch: 'llama', layers: 2 });
    const { stdout } = await runCommand(inspect, [dense, '--json']);
    const r = JSON.parse(stdout) as InspectReport;
    expect(validInspect(r)).toBe(true);
    expect(r.moe).toBeNull();
  });
});

describe('plan a mixture of experts', () => {
  it('--json at half the file: schema-valid, an expert cache, the MoE floor', async () => {
    const { code, stdout } = await runCommand(plan, [model, '--json', '--disk-bw', '1.3G', '--ram', String(Math.floor(fileBytes / 2))]);
    expect(code).toBe(0);
    const p = JSON.parse(stdout) as MemoryPlan;
    expect(validPlan(p), JSON.stringify(validPlan.errors)).toBe(true);
    expect(p.verdict).toBe('out-of-core');
    const e = p.moe!;
    expect(e.cacheExpertsPerLayer).toBeGreaterThan(0);
    expect(e.routing.source).toBe('synthetic-skew');
    expect(p.quantities.bytesReadPerToken.value).toBe(e.quantities.bytesReadPerToken.value);
    expect(p.quantities.floorBytesPerToken.value).toBe(e.quantities.floorBytesPerToken.value);
    expect(p.quantities.bytesReadPerToken.value).toBeLessThan(e.quantities.activeBytesPerToken.value as number);
  });

  it('text: the expert cache with its formulas', async () => {
    const { stdout } = await runCommand(plan, [model, '--disk-bw', '1.3G', '--ram', String(Math.floor(fileBytes / 2))]);
    expect(stdout).toMatch(/Experts: 16 per layer in 16 layers, 2 used per token; cache \d+ of 16 per layer/);
    expect(stdout).toMatch(/cache hit rate +\d+\.\d %/);
    expect(stdout).toMatch(/floor \(any schedule\) .* mixture of experts: routed experts not held/);
  });
});
