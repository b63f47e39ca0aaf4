// Speculative decoding in the real app (browser mode, Chromium, the real `ramforge serve` and
// worker): a synthetic target and a draft made from it with `synth --draft-of`, the draft set in
// the load settings (the plan view shows its section), the model loaded with it, a chat
// generation, then the dashboard's speculative panel with the verify passes and the acceptance.
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, CHROMIUM, IS_CI } from './support/env.js';
import { screenshot } from './support/browser.js';
import { servedApp } from './support/app.js';
import { startServe } from './support/serve.js';
import { synthDraftOf, synthModel } from './support/models.js';

const haveChromium = chromiumAvailable();
if (!haveChromium && !IS_CI) {
  process.stdout.write(`speculative e2e: SKIPPED — ${CHROMIUM} is not installed (apt-get install chromium); with CI=true this fails instead\n`);
}

describe.runIf(haveChromium || IS_CI)('speculative decoding in the app, in Chromium', () => {
  let target = '';
  let draft = '';
  const app = servedApp(async () => {
    target = synthModel('tiny');
    draft = synthDraftOf(target, 1);
    return startServe();
  });
  const byId = (id: string) => app.page.getByTestId(id);
  const text = async (id: string) => (await byId(id).textContent()) ?? '';

  it("the draft set in the load settings: the plan view shows what it costs and whether it pays off", async () => {
    await byId('file-input').setInputFiles(target);
    await byId('model-name').waitFor({ timeout: 120_000 });
    expect(await byId('setting-draft-max').isDisabled()).toBe(true);
    await byId('setting-draft').fill(draft);
    await byId('setting-draft').press('Enter');
    // Drafting at least 2 tokens a pass whatever the acceptance: random weights agree rarely.
    await byId('setting-draft-min').fill('2');
    await byId('plan-draft').waitFor({ timeout: 60_000 });
    expect(['true', 'false']).toContain(await byId('plan-draft-pays').getAttribute('data-pays'));
    expect(await text('plan-draft-break-even')).toMatch(/tok\/pass$/);
    expect(await text('plan-draft-shared')).toMatch(/iB$/);
    expect((await text('plan-draft-reason')).length).toBeGreaterThan(0);
    expect(await byId('plan-error').count()).toBe(0);
    await screenshot(app.page, 'plan-draft');
  });

  it('loads with the draft; a generation shows the verify passes and the acceptance on the dashboard', async () => {
    await byId('load-model').click();
    await app.page.waitForSelector('[data-testid="engine-status"][data-status="ready"]', { timeout: 120_000 });
    expect(await byId('engine-message').count()).toBe(0);
    await byId('nav-chat').click();
    await byId('chat-max-tokens').fill('32');
    await byId('chat-input').fill('Once upon a time');
    await byId('chat-send').click();
    await app.page.waitForSelector('[data-testid="assistant-message"][data-streaming="false"]', { timeout: 120_000 });
    expect(await byId('chat-error').count()).toBe(0);
    await byId('nav-dashboard').click();
    await app.page.waitForSelector('[data-testid="speculative-panel"][data-state="done"]', { timeout: 30_000 });
    expect(await text('spec-draft')).toMatch(/^draft .* · 1 layer · k 2–8 · /);
    const passes = Number(await text('spec-passes'));
    const drafted = Number(await text('spec-drafted'));
    const accepted = Number(await text('spec-accepted'));
    expect(passes).toBeGreaterThan(0);
    expect(drafted).toBeGreaterThanOrEqual(2 * passes);
    expect(accepted).toBeLessThanOrEqual(drafted);
    expect(await text('spec-acceptance')).toBe(`${((100 * accepted) / drafted).toFixed(0)}%`);
    expect(Number(await text('spec-tokens-per-pass'))).toBeGreaterThanOrEqual(1);
    expect(await text('spec-draft-ms')).toMatch(/\d( ms| s)$/);
    expect(await text('spec-verify-ms')).toMatch(/\d( ms| s)$/);
    // One point per verify pass the token events reported (a pass that yields nothing shows none).
    const points = Number(await byId('speculative-chart').getAttribute('data-points'));
    expect(points).toBeGreaterThan(0);
    expect(points).toBeLessThanOrEqual(passes);
    await byId('speculative-panel').scrollIntoViewIfNeeded();
    await screenshot(app.page, 'speculative-panel');
  });
});
