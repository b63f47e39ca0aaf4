// The lossy knobs of a mixture of experts in the app: experts per token and skipping uncached
// experts the router weighted low. Typed in the load settings, they say at once that they change
// the answer; a value out of range is refused in the form; loaded under an enforced cap that makes
// the expert cache run, the dashboard's routing panel counts the experts skipped, and the turn's
// report carries the knobs (report.lossy), as `ramforge run` writes them.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { screenshot } from './support/browser.js';
import { chatOnce, loadCappedStream, saveReport } from './support/ui.js';
import { cappedAppRuns, cappedServedApp } from './support/app.js';
import { synthTraceShapedMoeModel } from './support/models.js';

const canRun = cappedAppRuns('moe-lossy');

describe.runIf(canRun)('the lossy MoE knobs in the app', () => {
  const app = cappedServedApp();
  const byId = (id: string) => app.page.getByTestId(id);
  const type = async (id: string, text: string) => {
    await byId(id).fill(text);
    await byId(id).press('Enter');
  };

  it('refuses a value out of range, and warns that a set knob changes the answer', async () => {
    await byId('file-input').setInputFiles(synthTraceShapedMoeModel());
    await byId('model-name').waitFor({ timeout: 180_000 });
    expect(await byId('setting-lossy-warning').count()).toBe(0);
    await type('setting-skip-cold', '1.5');
    expect(await byId('setting-lossy-error').textContent()).toMatch(/^Skip cold experts below: a share of the routing weight/);
    expect(await byId('setting-lossy-warning').count()).toBe(0);
    await type('setting-skip-cold', '0.3');
    expect(await byId('setting-lossy-error').count()).toBe(0);
    expect(await byId('setting-lossy-warning').textContent()).toMatch(/^Lossy: these settings change the answer/);
  }, 300_000);

  it('loads with both knobs under a cap: the routing panel counts the skipped experts, and the report carries the knobs', async () => {
    await type('setting-experts-used', '4');
    // 159 MiB of weights, 200 MiB enforced: the experts are served by the expert cache.
    await loadCappedStream(app.page, '200M');
    await chatOnce(app.page, 12);

    await byId('nav-dashboard').click();
    await app.page.waitForSelector('[data-testid="routing-skipped"]', { timeout: 60_000 });
    expect(Number(await byId('routing-skipped').getAttribute('data-skipped'))).toBeGreaterThan(0);
    expect(await byId('routing-skipped').textContent()).toMatch(/^Lossy: [\d,]+ uncached experts skipped/);
    await byId('routing-panel').scrollIntoViewIfNeeded();
    await screenshot(app.page, 'moe-lossy-dashboard');

    const saved = await saveReport(app.page, 'moe-lossy-report.json');
    const report = JSON.parse(readFileSync(saved, 'utf8')) as { lossy?: { experts_used: number; skip_cold_experts: number }; residency: { experts: { skipped: number } } };
    expect(report.lossy).toMatchObject({ experts_used: 4, skip_cold_experts: 0.3 });
    expect(report.residency.experts.skipped).toBeGreaterThan(0);
  }, 600_000);
});
