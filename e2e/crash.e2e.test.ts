// Nothing acknowledged is lost on a crash: the real `ramforge serve` (browser mode, a tiny
// synthetic model), driven in Chromium as a user would — a finished chat turn, a report export
// and a settings change, each acknowledged by the UI, then a reply streaming — is killed with
// SIGKILL (the server and its worker at once). The next start on the same data folder says what
// it recovered, on stderr and in the app, and every acknowledged item is there.
import { describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { chromiumAvailable, IS_CI } from './support/env.js';
import { openApp, screenshot, type Browser } from './support/browser.js';
import { startServe, type Served } from './support/serve.js';
import { synthModel } from './support/models.js';
import { chatOnce } from './support/ui.js';

const haveChromium = chromiumAvailable();

/** A port nothing listens on now (the OS's choice for port 0, released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

async function until(pred: () => boolean, timeout: number, what: string): Promise<void> {
  const t0 = Date.now();
  while (!pred()) {
    if (Date.now() - t0 > timeout) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const FIRST = 'A question answered in full';
const CUT = 'A question cut off by a crash';

/** What the UI acknowledged before the crash. */
interface Acknowledged {
  firstReply: string;
  report: unknown;
  apiUrl: string;
}

/** A conversation in the data folder holds a reply still being written, with some of its text. */
function replySavedWhileStreaming(dataDir: string): boolean {
  const dir = join(dataDir, 'conversations');
  const names = existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.')) : [];
  return names.some((n) => {
    try {
      const c = JSON.parse(readFileSync(join(dir, n), 'utf8')) as { messages: { content: string; streaming?: boolean }[] };
      return c.messages.some((m) => m.streaming === true && m.content !== '');
    } catch {
      return false;
    }
  });
}

async function actBeforeCrash(page: Page, dataDir: string): Promise<Acknowledged> {
  const byId = (id: string) => page.getByTestId(id);
  // A finished turn: the reply has streamed to its end.
  await chatOnce(page, 16, FIRST);
  const firstReply = (await byId('assistant-message').last().locator('.body').textContent()) ?? '';
  // A report export, acknowledged by the "report saved" notice.
  await byId('nav-dashboard').click();
  await page.waitForSelector('[data-testid="export-report"]:not([disabled])', { timeout: 30_000 });
  const [download] = await Promise.all([page.waitForEvent('download'), byId('export-report').click()]);
  await page.waitForSelector('[data-testid="notice"]:has-text("report saved")', { timeout: 30_000 });
  const report: unknown = JSON.parse(readFileSync((await download.path()) as string, 'utf8'));
  // A settings change, acknowledged by the address the setting shows.
  const port = await freePort();
  const apiUrl = `http://127.0.0.1:${port}/v1`;
  await byId('api-port').fill(String(port));
  await byId('api-enabled').check();
  await page.waitForFunction((u) => document.querySelector('[data-testid="api-url"]')?.textContent === u, apiUrl, { timeout: 30_000 });
  // A reply streaming: long enough to be cut off, running long enough for the reply to be saved once.
  await byId('new-conversation').click();
  await byId('chat-max-tokens').fill('100000');
  await byId('chat-input').fill(CUT);
  await byId('chat-send').click();
  await page.waitForFunction(() => (document.querySelector('[data-testid="assistant-message"][data-streaming="true"] .body')?.textContent ?? '').length > 0, undefined, { timeout: 120_000 });
  // Crash once the reply so far is on disk (the host saves it at most a second behind); a host
  // that never saves it gets the same few seconds, then the crash all the same.
  await until(() => replySavedWhileStreaming(dataDir), 5000, 'the reply to be saved as it streams').catch(() => undefined);
  expect(await page.locator('[data-testid="assistant-message"][data-streaming="true"]').count(), 'the reply must still be streaming when the server is killed').toBe(1);
  return { firstReply, report, apiUrl };
}

describe.runIf(haveChromium || IS_CI)('kill -9 of ramforge serve loses nothing acknowledged', () => {
  it('the next start says what it recovered, and the turn, the report and the setting are all there', async () => {
    if (!haveChromium) throw new Error('/usr/bin/chromium is missing and CI=true: install the chromium package');
    // The small preset (about 50 tokens a second here): the tiny one fills its 2048-token context
    // in under 3 s, and on a busy machine its reply could end before the save it waits for.
    const model = synthModel('small');
    const dataDir = mkdtempSync(join(tmpdir(), 'ramforge-e2e-crash-'));
    let served: Served | null = null;
    let browser: Browser | null = null;
    try {
      served = await startServe([model], {}, { dataDir });
      const first = served;
      await until(() => /loaded /.test(first.log()), 120_000, 'the model to load');
      browser = await openApp(first.url);
      await browser.page.waitForSelector('[data-testid="engine-status"][data-status="ready"]', { timeout: 60_000 });
      const ack = await actBeforeCrash(browser.page, dataDir);
      await served.crash();
      await browser.close();
      browser = null;

      served = await startServe([model], {}, { dataDir });
      const s = served;
      // The start says it, on stderr (written before the URL, read from another pipe): the conversation cut off mid-reply.
      await until(() => /recovered: /.test(s.log()), 10_000, 'the recovery line').catch(() => undefined);
      expect(s.log()).toMatch(/ramforge serve: recovered: 1 conversation interrupted mid-reply \("A question cut off by a crash"/);
      browser = await openApp(s.url);
      const page = browser.page;
      const byId = (id: string) => page.getByTestId(id);
      // …and in the app, once.
      await page.waitForSelector('[data-testid="notice"]:has-text("recovered: 1 conversation interrupted mid-reply")', { timeout: 30_000 });
      await screenshot(page, 'crash-recovered');

      // Both conversations: the finished one with its reply, the cut-off one with the user's message and the reply so far, marked.
      await page.waitForSelector('[data-testid="conversation-item"]:has-text("A question cut off by a crash")', { timeout: 30_000 });
      await page.locator('[data-testid="conversation-item"]', { hasText: CUT }).click();
      expect(await byId('user-message').locator('.body').allTextContents()).toEqual([CUT]);
      const cut = byId('assistant-message');
      expect(await cut.getAttribute('data-interrupted')).toBe('true');
      expect(((await cut.locator('.body').textContent()) ?? '').length).toBeGreaterThan(0);
      await page.locator('[data-testid="conversation-item"]', { hasText: FIRST }).click();
      expect(await byId('user-message').locator('.body').allTextContents()).toEqual([FIRST]);
      expect(await byId('assistant-message').locator('.body').textContent()).toBe(ack.firstReply);
      expect(await byId('assistant-message').getAttribute('data-interrupted')).toBe('false');

      // The exported report is kept on the server, byte for byte what was downloaded; the dashboard has the last turn's report again.
      const kept = readdirSync(join(dataDir, 'reports')).filter((n) => /^report-.*\.json$/.test(n));
      expect(kept.map((n) => JSON.parse(readFileSync(join(dataDir, 'reports', n), 'utf8')) as unknown)).toEqual([ack.report]);
      await byId('nav-dashboard').click();
      await page.waitForSelector('[data-testid="export-report"]:not([disabled])', { timeout: 30_000 });

      // The setting holds: the API listens where it was set.
      await page.waitForFunction((u) => document.querySelector('[data-testid="api-url"]')?.textContent === u, ack.apiUrl, { timeout: 30_000 });
      expect((await fetch(`${ack.apiUrl}/models`)).status).toBe(200);
    } finally {
      await browser?.close();
      await served?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 600_000);
});
