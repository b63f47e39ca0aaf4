// The VRAM tier in the app on a Vulkan device (Mesa's lavapipe in CI): the settings list the
// device (a software one, used only when picked), the plan view shows what goes to the GPU under
// a VRAM budget, the model loads with it, and the dashboard shows the VRAM layers and what
// llama.cpp allocated on the device beside the budget. A mixture of experts larger than its RAM
// budget gets the expert cache's VRAM tier, and the routing panel shows where the routed experts
// were found: VRAM, RAM, storage.
import { describe, expect, it } from 'vitest';
import { CHROMIUM, IS_CI, chromiumAvailable } from './support/env.js';
import { screenshot } from './support/browser.js';
import { chatOnce, loadAndWait } from './support/ui.js';
import { servedApp } from './support/app.js';
import { startServe } from './support/serve.js';
import { synthModel, synthVramTierMoeModel } from './support/models.js';
import { testVulkanDevice } from '../src-main/native/vulkan.test-util.js';

const haveChromium = chromiumAvailable();
const vk = testVulkanDevice();
const canRun = (haveChromium && vk.device !== null) || IS_CI;
if (!canRun) process.stdout.write(`vram e2e: SKIPPED — ${!haveChromium ? `${CHROMIUM} is not installed` : vk.why}; with CI=true this fails instead\n`);

describe.runIf(canRun)('the VRAM tier in the app', () => {
  const app = servedApp(() => {
    if (!vk.device) throw new Error(`CI=true but no Vulkan device: ${vk.why}`);
    return startServe();
  });
  const byId = (id: string) => app.page.getByTestId(id);

  it('lists the Vulkan device; the plan view and the dashboard show the VRAM tier', async () => {
    const device = vk.device!;
    await byId('file-input').setInputFiles(synthModel('tiny'));
    await byId('model-name').waitFor({ timeout: 180_000 });
    // The device, as ggml reports it; a software device is marked and not the default.
    const listed = byId('gpu-device').filter({ hasText: device.name });
    await listed.first().waitFor({ timeout: 60_000 });
    if (device.type === 'cpu') expect(await listed.first().textContent()).toMatch(/software device/);
    await byId('setting-gpu').selectOption(String(device.index));
    await byId('setting-ram').fill('1G');
    await byId('setting-vram').fill('200M');
    await app.page.waitForSelector('[data-testid="plan-vram"]', { timeout: 60_000 });
    expect(await byId('plan-vram').textContent()).toMatch(/VRAM on Vulkan0: the output head and 2 layers/);
    expect(await byId('plan-bar').getAttribute('data-vram-layers')).toBe('2');
    await screenshot(app.page, 'vram-plan');

    await loadAndWait(app.page);
    await chatOnce(app.page, 6);

    await byId('nav-dashboard').click();
    await byId('dashboard-view').waitFor();
    expect(await byId('residency-heatmap').getAttribute('data-vram-layers')).toBe('2');
    // llama.cpp's ledger of the device after load, beside the 200 MiB budget.
    expect(await byId('kpi-vram').textContent()).toMatch(/MiB \/ 200\.0 MiB/);
    await screenshot(app.page, 'vram-dashboard');
  }, 600_000);

  it("a mixture of experts larger than its RAM budget: expert slots in VRAM, and the routing panel's hits per tier", async () => {
    const device = vk.device!;
    await byId('file-input').setInputFiles(synthVramTierMoeModel());
    await byId('setting-gpu').selectOption(String(device.index));
    await byId('setting-ram').fill('250M');
    await byId('setting-vram').fill('190M');
    await byId('setting-ctx').fill('256');
    // The plan of the new model under these budgets: the room the dense part leaves holds slots.
    await app.page.waitForSelector('[data-testid="plan-vram"]:has-text("expert slots in each layer")', { timeout: 180_000 });
    await loadAndWait(app.page);
    await chatOnce(app.page, 8);
    await byId('nav-dashboard').click();
    await byId('dashboard-view').waitFor();
    const tiers = byId('routing-tiers');
    await tiers.waitFor({ timeout: 60_000 });
    await tiers.scrollIntoViewIfNeeded();
    expect(Number(await tiers.getAttribute('data-vram-hits'))).toBeGreaterThan(0);
    expect(Number(await tiers.getAttribute('data-storage-reads'))).toBeGreaterThan(0);
    expect(Number(await tiers.getAttribute('data-uploads'))).toBeGreaterThan(0);
    expect(await byId('routing-tier-vram').textContent()).toMatch(/%/);
    await screenshot(app.page, 'vram-expert-tiers');
  }, 600_000);
});
