// A base model (no chat template) in the real app (browser mode, Chromium): loaded from the
// file picker, the chat view switches to completion mode by itself and says why, the typed
// text is continued by the model (streamed into the app.page), and Continue extends it again.
import { describe, expect, it } from 'vitest';
import { chromiumAvailable, CHROMIUM, IS_CI } from './support/env.js';
import { screenshot } from './support/browser.js';
import { servedApp } from './support/app.js';
import { startServe } from './support/serve.js';
import { synthBaseModel } from './support/models.js';

const haveChromium = chromiumAvailable();
if (!haveChromium && !IS_CI) {
  process.stdout.write(`base-model e2e: SKIPPED — ${CHROMIUM} is not installed (apt-get install chromium); with CI=true this fails instead\n`);
}

describe.runIf(haveChromium || IS_CI)('a base model in completion mode, in Chromium', () => {
  let model = '';
  const app = servedApp(async () => {
    model = synthBaseModel();
    return startServe();
  });
  const byId = (id: string) => app.page.getByTestId(id);

  it('loads the model: completion mode is chosen automatically, and the toggle says why', async () => {
    await byId('file-input').setInputFiles(model);
    await byId('model-name').waitFor({ timeout: 120_000 });
    expect(await byId('model-name').textContent()).toMatch(/e2e-base-model/);
    await byId('load-model').click();
    await app.page.waitForSelector('[data-testid="engine-status"][data-status="ready"]', { timeout: 120_000 });
    await byId('nav-chat').click();
    await app.page.waitForSelector('[data-testid="chat-mode"][data-mode="completion"][data-auto="true"]', { timeout: 30_000 });
    expect(await byId('chat-mode-completion').getAttribute('aria-pressed')).toBe('true');
    expect(await byId('chat-mode-chat').getAttribute('aria-pressed')).toBe('false');
    expect(await byId('chat-mode-reason').textContent()).toMatch(/chosen automatically.*no chat template/);
    // No chat template, so no system prompt either: completion continues the text as written.
    expect(await byId('chat-system').count()).toBe(0);
  });

  it('generates: the typed text is continued, the continuation shown apart from it', async () => {
    await byId('chat-max-tokens').fill('16');
    await byId('chat-input').fill('Once upon a time');
    expect(await byId('chat-send').textContent()).toBe('Generate');
    await byId('chat-send').click();
    await app.page.waitForSelector('[data-testid="completion-continuation"][data-streaming="false"]', { timeout: 120_000 });
    expect(await byId('chat-error').count()).toBe(0);
    expect(await byId('completion-prompt').allTextContents()).toEqual(['Once upon a time']);
    const continuation = (await byId('completion-continuation').textContent()) ?? '';
    expect(continuation.length).toBeGreaterThan(0);
    await byId('message-stats').waitFor();
    expect(await byId('message-stats').textContent()).toMatch(/tok\/s/);
    // The mode stays what it was chosen as (the conversation remembers it).
    expect(await byId('chat-mode').getAttribute('data-auto')).toBe('true');
    await screenshot(app.page, 'completion-mode');
  });

  it('Continue with nothing typed extends the same text', async () => {
    expect(await byId('chat-send').textContent()).toBe('Continue');
    await byId('chat-send').click();
    await app.page.waitForSelector('[data-testid="completion-continuation"]:nth-child(3)[data-streaming="false"]', { timeout: 120_000 });
    expect(await byId('completion-continuation').count()).toBe(2);
    expect(await byId('completion-prompt').count()).toBe(1);
    expect(((await byId('completion-continuation').nth(1).textContent()) ?? '').length).toBeGreaterThan(0);
  });
});
