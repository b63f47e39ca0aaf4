// The same app in the real Electron window, where an Electron binary exists. Here (no binary
// can be downloaded) it is skipped with the reason printed; the browser suite covers the UI.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron, type ElectronApplication, type Page } from 'playwright-core';
import { electronBinary, ROOT } from './support/env.js';
import { screenshot } from './support/browser.js';
import { synthModel } from './support/models.js';

const bin = electronBinary();
if (!bin) process.stdout.write('electron e2e: SKIPPED — the electron package has no binary on this machine (installed with ELECTRON_SKIP_BINARY_DOWNLOAD=1)\n');

describe.runIf(bin !== null)('Electron window', () => {
  let app: ElectronApplication;
  let page: Page;
  let data: string;

  beforeAll(async () => {
    data = mkdtempSync(join(tmpdir(), 'ramforge-e2e-electron-'));
    const model = synthModel('tiny');
    const args = [ROOT, '--model', model];
    if (process.getuid?.() === 0) args.push('--no-sandbox');
    app = await _electron.launch({ executablePath: bin as string, args, cwd: ROOT, env: { ...process.env, RAMFORGE_DATA: data } });
    page = await app.firstWindow();
    await page.getByTestId('app-root').waitFor({ timeout: 60_000 });
  });

  afterAll(async () => {
    await app?.close();
    rmSync(data, { recursive: true, force: true });
  });

  it('runs the renderer sandboxed, with only window.ramforge as its bridge', async () => {
    const g = await page.evaluate(() => ({
      require: typeof (globalThis as { require?: unknown }).require,
      process: typeof (globalThis as { process?: unknown }).process,
      api: typeof (window as unknown as { ramforge?: unknown }).ramforge,
      url: location.href,
    }));
    expect(g).toMatchObject({ require: 'undefined', process: 'undefined', api: 'object' });
    expect(g.url).toMatch(/^ramforge:\/\/app\//);
  });

  it('loads the model given on the command line and streams a reply', async () => {
    await page.waitForSelector('[data-testid="engine-status"][data-status="ready"]', { timeout: 120_000 });
    await page.getByTestId('nav-chat').click();
    await page.getByTestId('chat-max-tokens').fill('16');
    await page.getByTestId('chat-input').fill('Once upon a time');
    await page.getByTestId('chat-send').click();
    await page.waitForSelector('[data-testid="assistant-message"][data-streaming="false"]', { timeout: 120_000 });
    expect(((await page.getByTestId('assistant-message').last().textContent()) ?? '').trim().length).toBeGreaterThan(0);
    await screenshot(page, 'electron-chat');
  });

  it('refuses to navigate away or open windows', async () => {
    const before = page.url();
    await page.evaluate(() => {
      window.open('https://example.com');
      location.href = 'https://example.com';
    });
    await page.waitForTimeout(500);
    expect(page.url()).toBe(before);
    expect(app.windows().length).toBe(1);
  });
});
