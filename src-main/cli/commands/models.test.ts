// `ramforge models`: discovery in a fake home, with each chat model's plan for the budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import { command as models } from './models.js';
import { command as plan } from './plan.js';
import { UsageError } from '../../shared/errors.js';
import { runCommand } from './run-command.test-util.js';
import { buildFakeHome, DISCOVERY_ENV_KEYS, type Expected } from '../../node/discovery/fake-home.test-util.js';
import { MODELS_JSON_SCHEMA } from '../../shared/discovery/schema.js';
import type { DiscoveryReport } from '../../shared/discovery/types.js';
import type { MemoryPlan } from '../../shared/plan/plan-types.js';

let tmp = '';
let home = '';
let extra = '';
let expected: Expected[] = [];
const saved: Record<string, string | undefined> = {};
const validate = new Ajv({ allErrors: true, strict: false }).compile(MODELS_JSON_SCHEMA);

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'ramforge-models-'));
  home = join(tmp, 'home');
  extra = join(tmp, 'extra');
  expected = await buildFakeHome(home, extra);
  for (const k of ['HOME', ...DISCOVERY_ENV_KEYS]) saved[k] = process.env[k];
  for (const k of DISCOVERY_ENV_KEYS) delete process.env[k];
  process.env.HOME = home;
});
afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
  else process.env[k] = v;
  await rm(tmp, { recursive: true, force: true });
});

const inHome = (m: { root: string }) => m.root.startsWith(tmp);

describe('ramforge models', () => {
  it('--json: every model of the fake home with its source and kind, valid against the schema; chat models planned for --ram', async () => {
    const { code, stdout } = await runCommand(models, ['--json', '--ram', '4G', '--disk-bw', '1G', '--dir', extra]);
    expect(code).toBe(0);
    const r = JSON.parse(stdout) as DiscoveryReport;
    expect(validate(r), JSON.stringify(validate.errors)).toBe(true);
    expect(r.budget).toEqual({ ramBytes: 4 * 1024 ** 3, ramSource: '--ram', diskBandwidthSource: '--disk-bw' });
    const mine = r.models.filter(inHome);
    expect(mine.map((m) => `${m.source} ${m.name} ${m.kind}`).sort()).toEqual(expected.map((e) => `${e.source} ${e.name} ${e.kind}`).sort());
    for (const m of mine) expect(m.plan?.verdict ?? null).toBe(m.kind === 'model' ? 'fits' : null);
  });

  it("a model's verdict is the one `ramforge plan` gives for its path and the same budget", async () => {
    const r = JSON.parse((await runCommand(models, ['--json', '--ram', '80M', '--disk-bw', '1G'])).stdout) as DiscoveryReport;
    const m = r.models.find((x) => x.name === 'tinyllama:latest')!;
    const p = JSON.parse((await runCommand(plan, [m.path, '--json', '--ram', '80M', '--disk-bw', '1G'])).stdout) as MemoryPlan;
    expect(m.plan?.verdict).toBe(p.verdict);
    expect(m.plan?.reason).toBe(p.reason);
    expect(m.plan?.ramUsedBytes).toBe(p.quantities.ramUsedBytes.value);
  });

  it('human output groups by source, labels non-chat files and gives the reason for unreadable ones', async () => {
    const { stdout } = await runCommand(models, ['--ram', '4G', '--disk-bw', '1G', '--dir', extra]);
    expect(stdout).toMatch(/^Budget: RAM 4\.0 GiB \(--ram\)/);
    expect(stdout).toMatch(/\nOllama — .*\.ollama\/models/);
    expect(stdout).toMatch(/\n {2}tinyllama:latest +llama .* FITS\n/);
    expect(stdout).toMatch(/\n {2}broken:latest .*UNREADABLE: manifest is not valid JSON/);
    expect(stdout).toMatch(/\nLM Studio — /);
    expect(stdout).toMatch(/mmproj-model-f16\.gguf .*\[projector\]/);
    expect(stdout).toMatch(/\nHugging Face cache — /);
    expect(stdout).toMatch(/tiny-lora\.gguf .*\[adapter\] a LoRA adapter for llama/);
    expect(stdout).toMatch(/\nAdded folders — .*extra/);
  });

  it('a --dir that is not a folder is bad usage (exit 2)', async () => {
    await expect(runCommand(models, ['--dir', join(tmp, 'nope')])).rejects.toBeInstanceOf(UsageError);
  });
});
