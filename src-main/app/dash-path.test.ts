// A model file whose name begins with '-' reaches our own CLI as a file, not as a flag: the app
// spawns `ramforge inspect` and `ramforge plan` with `--` before the path.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../cli/built-cli.test-util.js';
import { tinyModel } from '../shared/gguf/tiny-models.test-util.js';
import { parseArgs } from '../cli/args.js';
import { command as planCommand } from '../cli/commands/plan.js';
import { AppService } from './service.js';
import { FakeHost } from './fake-host.test-util.js';
import { defaultSettings, planArgs } from './settings.js';

const NAME = '-weird.gguf';
let dir = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-dash-'));
  await writeFile(join(dir, NAME), tinyModel());
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a model path that begins with -', () => {
  it('planArgs puts it after --, where the plan command reads it as the model', () => {
    const args = planArgs(NAME, { ...defaultSettings(), ramBytes: 1 << 30, ctx: 64 });
    expect(args.slice(-2)).toEqual(['--', NAME]);
    expect(parseArgs(args.slice(1), planCommand).positionals).toEqual([NAME]);
  });

  it('the built CLI plans it from the arguments the app builds', () => {
    const r = runCli(planArgs(NAME, { ...defaultSettings(), ramBytes: 1 << 30, ctx: 64 }), { cwd: dir });
    expect(r.stderr).not.toMatch(/unknown flag/);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('layers');
  });

  it("the app's default inspect and plan (child processes of the CLI) accept it", async () => {
    const cwd = process.cwd();
    const svc = new AppService({ dataDir: join(dir, 'data'), hostFactory: async (o) => new FakeHost(o) });
    process.chdir(dir);
    try {
      const info = (await svc.inspect(NAME)) as { hyperparameters?: unknown };
      expect(info.hyperparameters).toBeDefined();
      const plan = (await svc.plan(NAME, { ...defaultSettings(), ramBytes: 1 << 30, ctx: 64 })) as { layers?: unknown[] };
      expect(Array.isArray(plan.layers)).toBe(true);
    } finally {
      process.chdir(cwd);
      await svc.close();
    }
  });
});
