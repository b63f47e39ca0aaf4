// One default, changed in the settings module alone, is what every surface uses: the CLI's
// plan, the app's load parameters (and the plan it asks for), the run report, and the
// renderer's settings form. The module is replaced for this test with its prefetch depth
// raised by four — DEFAULT_PREFETCH_DEPTH and the DEFAULT_RUN_SETTINGS built from it, as the
// module itself derives one from the other — and nothing else is touched.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';

const changed = vi.hoisted(() => ({ depth: 0 }));
vi.mock('./run-settings.js', async (orig) => {
  const m = await orig<typeof import('./run-settings.js')>();
  changed.depth = m.DEFAULT_PREFETCH_DEPTH + 4;
  return { ...m, DEFAULT_PREFETCH_DEPTH: changed.depth, DEFAULT_RUN_SETTINGS: { ...m.DEFAULT_RUN_SETTINGS, prefetchDepth: changed.depth } };
});

const { command: plan } = await import('../../cli/commands/plan.js');
const { runCommand } = await import('../../cli/commands/run-command.test-util.js');
const { tinyModel } = await import('../gguf/tiny-models.test-util.js');
const { AppService } = await import('../../app/service.js');
const { FakeHost } = await import('../../app/fake-host.test-util.js');
const { defaultSettings, planArgs } = await import('../../app/settings.js');
const { buildTurnReport } = await import('../../app/report.js');
const { buildInventory } = await import('../residency/inventory.js');
const { SettingsPanel } = await import('../../../src-renderer/components/SettingsPanel.js');
const original = await vi.importActual<typeof import('./run-settings.js')>('./run-settings.js');

let dir = '';
let model = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-one-default-'));
  model = join(dir, 'tiny.gguf');
  await writeFile(model, tinyModel({ layers: 4 }));
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

describe('a default changed in the settings module', () => {
  it('differs from the shipped one (the test changes something)', () => {
    expect(changed.depth).not.toBe(original.DEFAULT_PREFETCH_DEPTH);
  });

  let planJson: { input: { prefetchDepth: number } } | null = null;
  it("is the CLI plan's", async () => {
    const { code, stdout } = await runCommand(plan, ['--json', '--ram', '1G', '--disk-bw', '1G', '--', model]);
    expect(code).toBe(0);
    planJson = JSON.parse(stdout) as { input: { prefetchDepth: number } };
    expect(planJson.input.prefetchDepth).toBe(changed.depth);
  });

  it("is the app's: the plan it asks for, the load parameters, and the turn's report", async () => {
    const hosts: InstanceType<typeof FakeHost>[] = [];
    const svc = new AppService({
      dataDir: join(dir, 'data'),
      hostFactory: async (o) => {
        const h = new InventoryHost(o);
        hosts.push(h);
        return h;
      },
      planModel: async () => planJson,
      buildReport: buildTurnReport,
    });
    try {
      const s = defaultSettings();
      const args = planArgs(model, s);
      expect(args[args.indexOf('--prefetch-depth') + 1]).toBe(String(changed.depth));
      await svc.load(model, { ...s, ramBytes: 1 << 30 });
      expect(hosts[0]?.loads[0]?.prefetchDepth).toBe(changed.depth);
      expect(hosts[0]?.loads[0]?.stream?.prefetchDepth).toBe(changed.depth);
      const done = new Promise<void>((resolve) => svc.onEvent((e) => e.type === 'generation-done' && resolve()));
      await svc.generate('r', [{ role: 'user', content: 'hi' }], null, 2);
      await done;
      const report = (await svc.lastReport()) as { config: { prefetch_depth: number } } | null;
      expect(report, (await svc.getState()).message ?? "").not.toBeNull();
      expect(report?.config.prefetch_depth).toBe(changed.depth);
    } finally {
      await svc.close();
    }
  });

  it("is the renderer's settings form's", () => {
    const html = renderToStaticMarkup(createElement(SettingsPanel));
    expect(html).toMatch(new RegExp(`data-testid="setting-prefetch"[^>]*value="${changed.depth}"`));
  });
});
