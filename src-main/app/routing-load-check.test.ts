// A routing trace the app is given is checked before load, as `ramforge run --routing-trace`
// checks it: a trace of another shape than the model's, or routing to write on a dense model or
// into a folder that does not exist, is refused by the out-of-process preparation with the CLI's
// words (the app names its setting where the CLI names its flag) and no worker starts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppService } from './service.js';
import { defaultSettings } from './settings.js';
import { cliBuiltOrSkip, runCli } from '../cli/built-cli.test-util.js';
import type { RunSettings } from '../shared/settings/run-settings.js';

const GEMMA = join(__dirname, '..', '..', 'resources', 'traces', 'gemma-4-26b-a4b.route.csv');
const built = cliBuiltOrSkip('the app routing-trace load checks');
let dir = '';
let moe = '';
let dense = '';

beforeAll(() => {
  if (!built) return;
  dir = mkdtempSync(join(tmpdir(), 'ramforge-app-routing-'));
  moe = join(dir, 'moe.gguf');
  dense = join(dir, 'dense.gguf');
  const m = runCli(['synth', '--arch', 'qwen3moe', '--preset', 'tiny', '--layers', '2', '--experts', '8', '--experts-used', '2', '--expert-ff', '32', '--quiet', '--out', moe]);
  expect(m.code, m.stderr).toBe(0);
  const d = runCli(['synth', '--preset', 'tiny', '--quiet', '--out', dense]);
  expect(d.code, d.stderr).toBe(0);
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The load's refusal, the service's state after it, and how many workers were asked for. */
async function refusal(model: string, patch: Partial<RunSettings>): Promise<{ message: string; status: string; started: number }> {
  let started = 0;
  const svc = new AppService({
    dataDir: join(dir, `data-${Math.random().toString(36).slice(2)}`),
    hostFactory: async () => {
      started++;
      throw new Error('no worker may start for a refused routing setting');
    },
  });
  try {
    const err = await svc.load(model, { ...defaultSettings(), ...patch }).then(
      () => null,
      (e: Error) => e,
    );
    return { message: err?.message ?? 'accepted', status: (await svc.getState()).status, started };
  } finally {
    await svc.close();
  }
}

describe.skipIf(!built)('app load with routing settings', () => {
  it("refuses a trace of another shape before load with the CLI's message", async () => {
    const cli = runCli(['run', moe, '-p', 'hi', '-n', '2', '-q', '--routing-trace', GEMMA]);
    expect(cli.code).toBe(2);
    const why = 'the routing trace is for 30 MoE layers × 128 experts, 6 per token; the model has 2 MoE layers × 8 experts, 2 per token';
    expect(cli.stderr).toContain(`--routing-trace ${GEMMA}: ${why}`);
    const r = await refusal(moe, { routingTrace: GEMMA });
    expect(r).toEqual({ message: `routing trace ${GEMMA}: ${why}`, status: 'idle', started: 0 });
  });

  it('refuses routing on a dense model, a trace that cannot be read and an output folder that does not exist', async () => {
    expect((await refusal(dense, { routingTrace: GEMMA })).message).toBe(`routing trace ${GEMMA}: routing traces are for mixtures of experts; this model has no experts`);
    const missing = join(dir, 'missing.csv');
    expect((await refusal(moe, { routingTrace: missing })).message).toBe(`routing trace ${missing}: cannot read it (ENOENT)`);
    const nowhere = join(dir, 'no', 'such', 'out.csv');
    const r = await refusal(moe, { routingTraceOut: nowhere });
    expect(r).toEqual({ message: `routing output ${nowhere}: the folder ${join(dir, 'no', 'such')} does not exist`, status: 'idle', started: 0 });
  });
});
