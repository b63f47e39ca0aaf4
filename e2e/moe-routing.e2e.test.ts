// Routing traces in the app: a synthetic mixture of experts of the published gemma-4 trace's
// shape (30 MoE layers × 128 experts, 6 a token). A trace of another shape typed in the settings
// is refused before load with the CLI's message; the published trace, replayed under an enforced
// cap that makes the expert cache run, puts on the dashboard the expert cache's reads ÷ Belady's
// optimum for that routing and cache size (the MoE's floor), the optimum's bytes, the trace, and
// read-ahead's recall — live, and again from the turn's report saved and opened.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './support/env.js';
import { screenshot } from './support/browser.js';
import { chatOnce, loadCappedStream, saveReport } from './support/ui.js';
import { cappedAppRuns, cappedServedApp } from './support/app.js';
import { synthTraceShapedMoeModel } from './support/models.js';

const TRACES = join(ROOT, 'resources', 'traces');
const GEMMA = join(TRACES, 'gemma-4-26b-a4b.route.csv');
const OSS = join(TRACES, 'gpt-oss-120b-k2.route.csv');

const canRun = cappedAppRuns('moe-routing');

describe.runIf(canRun)('routing traces in the app', () => {
  const app = cappedServedApp();
  const byId = (id: string) => app.page.getByTestId(id);
  const setTrace = async (path: string) => {
    await byId('setting-routing-trace').fill(path);
    await byId('setting-routing-trace').press('Enter');
  };

  it("refuses a trace of another shape before load, with the CLI's message", async () => {
    await byId('file-input').setInputFiles(synthTraceShapedMoeModel());
    await byId('model-name').waitFor({ timeout: 180_000 });
    await setTrace(OSS);
    await byId('load-model').click();
    const err = byId('load-error');
    await err.waitFor({ timeout: 60_000 });
    expect(await err.textContent()).toBe(`routing trace ${OSS}: the routing trace is for 36 MoE layers × 128 experts, 2 per token; the model has 30 MoE layers × 128 experts, 6 per token`);
    expect(await byId('engine-status').getAttribute('data-status')).toBe('idle');
  }, 300_000);

  it("replays the published trace under a cap: the dashboard shows read ÷ optimal, the optimum's bytes and the trace, live and from the saved report", async () => {
    await setTrace(GEMMA);
    // 159 MiB of weights, 200 MiB enforced: the experts are served by the expert cache.
    await loadCappedStream(app.page, '200M');
    await chatOnce(app.page, 12);

    await byId('nav-dashboard').click();
    const panel = byId('routing-panel');
    await app.page.waitForSelector('[data-testid="routing-panel"]:not([data-read-over-optimal=""])', { timeout: 60_000 });
    expect(await panel.getAttribute('data-trace')).toBe(GEMMA);
    const ratio = Number(await panel.getAttribute('data-read-over-optimal'));
    // Belady's optimum is a floor: no cache of the same size reads less; read-ahead, which stops
    // itself on routing it cannot predict, keeps the cache near it.
    expect(ratio).toBeGreaterThanOrEqual(1);
    expect(ratio).toBeLessThanOrEqual(1.25);
    expect(await byId('routing-read-over-optimal').textContent()).toBe(`${ratio.toFixed(2)}×`);
    expect(await byId('kpi-read-over-optimal').textContent()).toBe(`${ratio.toFixed(2)}×`);
    expect(await byId('routing-optimal-bytes').textContent()).toMatch(/^\d+(\.\d)? (KiB|MiB)$/);
    expect(await byId('routing-optimum-note').textContent()).toBe("Belady's optimum for this routing and cache size: the MoE's floor");
    expect(await byId('routing-trace').textContent()).toMatch(/^Routing: replayed from gemma-4-26b-a4b\.route\.csv \(\d+ token × layer selections\)/);
    expect(await byId('routing-recall').textContent()).toMatch(/%$/);
    expect(await byId('routing-wasted').textContent()).toMatch(/B$/);
    await panel.scrollIntoViewIfNeeded();
    await screenshot(app.page, 'moe-routing-dashboard');

    // The turn's report, saved and opened again: the same figures, from residency.routing.
    const saved = await saveReport(app.page, 'moe-routing-report.json');
    const routing = (JSON.parse(readFileSync(saved, 'utf8')) as { residency: { routing: { trace: string; read_over_optimal: number } } }).residency.routing;
    expect(routing.trace).toBe(GEMMA);
    expect(routing.read_over_optimal.toFixed(2)).toBe(ratio.toFixed(2));
    await byId('open-report-input').setInputFiles(saved);
    await byId('report-view').waitFor({ timeout: 30_000 });
    expect(await byId('routing-panel').getAttribute('data-trace')).toBe(GEMMA);
    expect(Number(await byId('routing-panel').getAttribute('data-read-over-optimal')).toFixed(2)).toBe(ratio.toFixed(2));
    expect(await byId('routing-optimum-note').textContent()).toBe("Belady's optimum for this routing and cache size: the MoE's floor");
  }, 600_000);
});
