// `ramforge plan --draft`: the plan budgets a draft beside the model as `run --draft` does, and
// the app's plan request for settings with a draft reaches it through the same flags.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import { command as plan } from './plan.js';
import { UsageError } from '../../shared/errors.js';
import { runCommand, writeSparseModel } from './run-command.test-util.js';
import { PLAN_JSON_SCHEMA } from '../../shared/plan/plan-schema.js';
import type { MemoryPlan } from '../../shared/plan/plan-types.js';
import { writeDraftOf } from '../../synth/draft-of.js';
import { defaultSettings, planArgs } from '../../app/settings.js';

let dir = '';
let model = '';
let draft = '';
let otherVocab = '';
let fileBytes = 0;
const shape = { arch: 'llama' as const, layers: 16, embd: 512, heads: 8, kvHeads: 4, ff: 1536, vocab: 4096, matType: 2 };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-plan-draft-'));
  model = join(dir, 'm.gguf');
  draft = join(dir, 'm-draft.gguf');
  otherVocab = join(dir, 'other.gguf');
  ({ fileBytes } = await writeSparseModel(model, shape));
  await writeDraftOf(model, 2, draft);
  await writeSparseModel(otherVocab, { ...shape, layers: 2, vocab: 4000 });
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const validate = new Ajv({ allErrors: true, strict: false }).compile(PLAN_JSON_SCHEMA);

async function planJson(argv: string[]): Promise<MemoryPlan> {
  const { code, stdout } = await runCommand(plan, ['--json', '--disk-bw', '1G', ...argv]);
  expect(code).toBe(0);
  const p = JSON.parse(stdout) as MemoryPlan;
  expect(validate(p), JSON.stringify(validate.errors)).toBe(true);
  return p;
}

describe('ramforge plan --draft', () => {
  it('budgets the draft: what it shares with the model, what it costs it, the break-even, whether it pays and why', async () => {
    const ram = String(Math.floor(fileBytes / 2));
    const alone = await planJson([model, '--ram', ram]);
    expect(alone.draft).toBeNull();
    const p = await planJson([model, '--ram', ram, '--draft', draft, '--draft-max', '4']);
    const d = p.draft!;
    expect(d.path).toBe(draft);
    // A draft made of the model's own layers shares every one of its weights.
    expect(d.sharedBytes.value).toBeGreaterThan(0);
    expect(d.ownWeightBytes.value).toBe(0);
    expect(d.residentCostBytes.value).toBeGreaterThanOrEqual(0);
    expect(d.breakEvenTokensPerPass.value).toBeGreaterThan(0);
    expect(typeof d.pays).toBe('boolean');
    expect(d.reason).toMatch(/draft|pass/);
  });

  it("the app's plan request for settings with a draft carries --draft, --draft-max and --draft-min to the plan", async () => {
    const args = planArgs(model, { ...defaultSettings(), ramBytes: Math.floor(fileBytes / 2), draft, draftMax: 3, draftMin: 1 });
    expect(args.slice(args.indexOf('--draft'), args.indexOf('--draft') + 6)).toEqual(['--draft', draft, '--draft-max', '3', '--draft-min', '1']);
    const p = await planJson(args.slice(1));
    expect(p.draft?.path).toBe(draft);
    expect(planArgs(model, defaultSettings())).not.toContain('--draft');
  });

  it('refuses a draft of another vocabulary, --parallel above 1 and --draft-min above --draft-max (exit 2)', async () => {
    const refused = (argv: string[]) => runCommand(plan, [model, '--ram', '1G', ...argv]).catch((e: unknown) => e);
    const vocab = await refused(['--draft', otherVocab]);
    expect(vocab).toBeInstanceOf(UsageError);
    expect((vocab as Error).message).toMatch(/cannot propose tokens for this model: the vocabularies differ in size/);
    expect(await refused(['--draft', draft, '--parallel', '2'])).toBeInstanceOf(UsageError);
    const minMax = await refused(['--draft', draft, '--draft-max', '2', '--draft-min', '3']);
    expect((minMax as Error).message).toMatch(/--draft-min must be at most --draft-max/);
  });
});
