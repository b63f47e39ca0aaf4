// The load's defaults, each changed once in the settings module alone, reach every surface: the
// CLI's plan, the app's load parameters (prepared as `ramforge prepare-load` prepares them), the
// API server's model, and the run report. The module is replaced for this test with the default
// context, the largest micro-batch (and the clamp built on it, as the module builds it), the KV
// element size, the graph trace's event bound and the enforce timeout changed; nothing else is
// touched.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const changed = vi.hoisted(() => ({ ctx: 0, ubatch: 0, kv: 0, events: 0, timeout: 0 }));
vi.mock('./run-settings.js', async (orig) => {
  const m = await orig<typeof import('./run-settings.js')>();
  Object.assign(changed, { ctx: m.DEFAULT_CTX / 32, ubatch: m.MAX_UBATCH / 16, kv: m.DEFAULT_KV_ELEMENT_BYTES * 2, events: m.DEFAULT_GRAPH_TRACE_EVENTS + 7, timeout: m.DEFAULT_ENFORCE_TIMEOUT_S + 1 });
  return {
    ...m,
    DEFAULT_CTX: changed.ctx,
    MAX_UBATCH: changed.ubatch,
    microBatch: (batch: number, ctx = Infinity) => Math.min(batch, changed.ubatch, ctx),
    DEFAULT_KV_ELEMENT_BYTES: changed.kv,
    DEFAULT_GRAPH_TRACE_EVENTS: changed.events,
    DEFAULT_ENFORCE_TIMEOUT_S: changed.timeout,
  };
});

const { command: plan } = await import('../../cli/commands/plan.js');
const { command: prepareLoad } = await import('../../cli/commands/prepare-load.js');
const { command: run } = await import('../../cli/commands/run.js');
const { parseArgs } = await import('../../cli/args.js');
const { capFrom, loadParams, prepareRun } = await import('../../cli/run-config.js');
const { openModelInput } = await import('../../cli/model-input.js');
const { runCommand } = await import('../../cli/commands/run-command.test-util.js');
const { tinyModel } = await import('../gguf/tiny-models.test-util.js');
const { AppService } = await import('../../app/service.js');
const { FakeHost } = await import('../../app/fake-host.test-util.js');
const { defaultSettings, prepareArgs } = await import('../../app/settings.js');
const { buildTurnReport } = await import('../../app/report.js');
const { buildInventory } = await import('../residency/inventory.js');
const original = await vi.importActual<typeof import('./run-settings.js')>('./run-settings.js');

type PlanJson = { input: { ctx: number; ubatch: number; kvTypeBytes: number } };
let dir = '';
let model = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-one-default-load-'));
  model = join(dir, 'tiny.gguf');
  // Trained on more context than either default: the default is what the shape takes.
  await writeFile(model, tinyModel({ layers: 4, ctx: 8192 }));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A fake worker whose generation carries an inventory, as the real one's does (the turn report needs it). */
class InventoryHost extends FakeHost {
  override async generate(...args: Parameters<InstanceType<typeof FakeHost>['generate']>) {
    const r = await super.generate(...args);
    return { ...r, residency: { policy: 'off', tiers: [], inventory: buildInventory([], [], 0, 4096), counters: null, finalResident: [] } };
  }
}

/** The app with its load prepared by the prepare-load command in this process (the mocked module is this process's). */
function app(hosts: InstanceType<typeof FakeHost>[]) {
  return new AppService({
    dataDir: join(dir, `data-${hosts.length}-${Math.random()}`),
    hostFactory: async (o) => {
      const h = new InventoryHost(o);
      hosts.push(h);
      return h;
    },
    prepareModel: async (path, s) => {
      const args = prepareArgs(path, s);
      const { code, stdout } = await runCommand(prepareLoad, args.slice(1));
      if (code !== 0) throw new Error(`prepare-load exited ${code}`);
      return JSON.parse(stdout);
    },
    buildReport: buildTurnReport,
  });
}

describe('the load defaults changed in the settings module', () => {
  it('differ from the shipped ones (the test changes something)', () => {
    expect(changed.ctx).not.toBe(original.DEFAULT_CTX);
    expect(changed.ubatch).not.toBe(original.MAX_UBATCH);
    expect(changed.kv).not.toBe(original.DEFAULT_KV_ELEMENT_BYTES);
    expect(changed.events).not.toBe(original.DEFAULT_GRAPH_TRACE_EVENTS);
    expect(changed.timeout).not.toBe(original.DEFAULT_ENFORCE_TIMEOUT_S);
  });

  it("are the CLI plan's: context, micro-batch, KV element size", async () => {
    const { code, stdout } = await runCommand(plan, ['--json', '--ram', '1G', '--disk-bw', '1G', '--', model]);
    expect(code).toBe(0);
    const p = JSON.parse(stdout) as PlanJson;
    expect(p.input).toMatchObject({ ctx: changed.ctx, ubatch: changed.ubatch, kvTypeBytes: changed.kv });
  });

  it("are the CLI run's: its load (context, micro-batch, the trace's bound) and its cap's timeout", async () => {
    const f = parseArgs(['--ram', '1G', '--enforce-ram', '--graph-trace', '--', model], run).flags;
    const opened = await openModelInput(model);
    const p = loadParams(model, f, prepareRun(opened, f));
    expect(p).toMatchObject({ ctx: changed.ctx, batch: changed.ubatch, graphTrace: { maxEvents: changed.events } });
    expect(capFrom(f)?.timeoutS).toBe(changed.timeout);
  });

  it("are the app's load parameters, the API server's model and the turn's report", async () => {
    const hosts: InstanceType<typeof FakeHost>[] = [];
    const svc = app(hosts);
    try {
      await svc.load(model, { ...defaultSettings(), ramBytes: 1 << 30 });
      expect(hosts[0]?.loads[0]).toMatchObject({ ctx: changed.ctx, batch: changed.ubatch, graphTrace: { maxEvents: changed.events } });
      const api = await svc.startApiServer({ host: '127.0.0.1', port: 0, apiKey: null });
      try {
        const models = (await (await fetch(`${api.url}/models`)).json()) as { data: { ramforge: { ctx_per_sequence: number } }[] };
        expect(models.data[0]?.ramforge.ctx_per_sequence).toBe(changed.ctx);
      } finally {
        await api.close();
      }
      const done = new Promise<void>((resolve) => svc.onEvent((e) => e.type === 'generation-done' && resolve()));
      await svc.generate('r', [{ role: 'user', content: 'hi' }], null, 2);
      await done;
      const report = (await svc.lastReport()) as { config: { ctx: number; batch: number }; plan: PlanJson } | null;
      expect(report, (await svc.getState()).message ?? '').not.toBeNull();
      expect(report?.config).toMatchObject({ ctx: changed.ctx, batch: changed.ubatch });
      expect(report?.plan.input.kvTypeBytes).toBe(changed.kv);
    } finally {
      await svc.close();
    }
  });
});
