// One load path: the same model and the same settings through the app's service (which asks
// `ramforge prepare-load` in a child process, as the app does) and through the CLI's own
// preparation (`ramforge run`'s prepareRun + loadParams) give the identical shape and the
// identical load parameters, and the app's capped worker starts from the same cold page cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppService } from '../app/service.js';
import { FakeHost } from '../app/fake-host.test-util.js';
import { cliBuiltOrSkip, runCli } from './built-cli.test-util.js';
import { parseArgs } from './args.js';
import { command as runCommand } from './commands/run.js';
import { openModelInput } from './model-input.js';
import { BelowMinimumError, loadParams, prepareRun } from './run-config.js';
import { settingsFromFlags } from './flag-settings.js';
import type { LoadParams } from '../shared/worker-protocol.js';

let dir = '';
let model = '';
const built = cliBuiltOrSkip('the app-versus-CLI load test');

beforeAll(async () => {
  if (!built) return;
  dir = await mkdtemp(join(tmpdir(), 'ramforge-one-load-'));
  model = join(dir, 'small.gguf');
  const r = runCli(['synth', '--arch', 'llama', '--preset', 'small', '--seed', '3', '--quiet', '--out', model]);
  if (r.code !== 0) throw new Error(r.stderr);
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * The CLI's preparation for `ramforge run MODEL -p x` plus `flags`, as a server prepares it: the
 * app serves an API (its switch can start one at any time), so its loads budget the context
 * /v1/embeddings makes, as `serve` does; `run` alone plans none.
 */
async function viaCli(flags: string[]) {
  const f = parseArgs([model, '-p', 'x', ...flags], runCommand).flags;
  const prepared = prepareRun(await openModelInput(model), f, null, [], true);
  return { settings: settingsFromFlags(f), shape: prepared.shape, load: loadParams(model, f, prepared) };
}

/** The app's load of the same settings, as its worker receives it. */
async function viaApp(settings: ReturnType<typeof settingsFromFlags>) {
  const hosts: FakeHost[] = [];
  const svc = new AppService({
    dataDir: join(dir, `data-${hosts.length}-${Date.now()}`),
    hostFactory: async (o) => {
      const h = new FakeHost(o);
      hosts.push(h);
      return h;
    },
  });
  try {
    await svc.load(model, settings);
    return { load: hosts[0]?.loads[0] as LoadParams, coldStart: hosts[0]?.opts.coldStart ?? null };
  } finally {
    await svc.close();
  }
}

describe.skipIf(!built)('the app and the CLI prepare one load', () => {
  it('a model larger than the enforced budget: the same shape, the same load parameters, a cold start', async () => {
    // Three quarters of the file: out of core, above the smallest cap (the e2e suite runs twice the budget).
    const budget = Math.floor((statSync(model).size * 3) / 4);
    const cli = await viaCli(['--ram', String(budget), '--enforce-ram']);
    expect(cli.load.policy).toBe('stream');
    const app = await viaApp(cli.settings);
    expect(app.load).toEqual(cli.load);
    // The shape is the load's ctx, micro-batch and threads: chosen once, by the shared chooser.
    expect({ ctx: app.load.ctx, batch: app.load.batch, threads: app.load.threads }).toEqual({ ctx: cli.shape.ctx, batch: cli.shape.batch, threads: cli.shape.threads });
    expect(app.coldStart).toEqual([model]);
  });

  it('below the smallest cap: both refuse before a worker starts, naming the same cap', async () => {
    const f = parseArgs([model, '-p', 'x', '--ram', '24M', '--enforce-ram'], runCommand).flags;
    const opened = await openModelInput(model);
    let cliMin = 0;
    try {
      prepareRun(opened, f, null, [], true);
    } catch (e) {
      expect(e).toBeInstanceOf(BelowMinimumError);
      cliMin = (e as BelowMinimumError).minimumBytes;
    }
    expect(cliMin).toBeGreaterThan(24 * 2 ** 20);
    let started = 0;
    const svc = new AppService({
      dataDir: join(dir, 'data-refused'),
      hostFactory: async (o) => {
        started++;
        return new FakeHost(o);
      },
    });
    try {
      const err = await svc.load(model, settingsFromFlags(f)).then(() => null, (e: Error) => e);
      expect(err?.message).toMatch(/below the smallest cap that runs this model/);
      expect(err?.message).toContain(`(${cliMin} bytes)`);
      expect(started).toBe(0);
      expect((await svc.getState()).status).toBe('idle');
    } finally {
      await svc.close();
    }
  });

  it('no budget, and a budget the model fits in: still the same load', async () => {
    for (const flags of [[], ['--ram', '4G'], ['--ram', '4G', '--ctx', '512', '--policy', 'conservative']]) {
      const cli = await viaCli(flags);
      const app = await viaApp(cli.settings);
      expect(app.load, flags.join(' ')).toEqual(cli.load);
      expect(app.coldStart, 'uncapped runs keep the page cache').toBeNull();
    }
  });
});
