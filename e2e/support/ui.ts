// Steps many e2e tests take through the UI, written once: load the open model and wait for the
// engine to be ready (failing with what the UI said otherwise), and send one chat message and
// wait for its reply to finish streaming.
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DOWNLOADS } from './env.js';

const ENDED = '[data-testid="engine-status"][data-status="ready"], [data-testid="engine-status"][data-status="crashed"], [data-testid="load-error"]';

/** Clicks Load and waits for ready; a crash or a refusal fails with the UI's own words. */
export async function loadAndWait(page: Page): Promise<void> {
  const byId = (id: string) => page.getByTestId(id);
  await byId('load-model').click();
  await page.waitForSelector(ENDED, { timeout: 240_000 });
  const why = [...(await byId('engine-message').allTextContents()), ...(await byId('load-error').allTextContents())].join(' ');
  expect(await byId('engine-status').getAttribute('data-status'), why).toBe('ready');
}

/** A new conversation, one message, its reply streamed to the end. */
export async function chatOnce(page: Page, maxTokens: number, prompt = 'Once upon a time'): Promise<void> {
  const byId = (id: string) => page.getByTestId(id);
  await byId('new-conversation').click();
  await byId('nav-chat').click();
  await byId('chat-max-tokens').fill(String(maxTokens));
  await byId('chat-input').fill(prompt);
  await byId('chat-send').click();
  await page.waitForSelector('[data-testid="assistant-message"][data-streaming="false"]', { timeout: 240_000 });
}

/** Loads the open model under an enforced cap with the stream policy (a mixture of experts then runs its expert cache). */
export async function loadCappedStream(page: Page, ram: string): Promise<void> {
  await page.getByTestId('setting-ram').fill(ram);
  await page.getByTestId('setting-enforce').check();
  await page.getByTestId('setting-policy').selectOption('stream');
  await loadAndWait(page);
}

/** The last turn's report, exported from the dashboard and saved as DOWNLOADS/NAME; its path. */
export async function saveReport(page: Page, name: string): Promise<string> {
  await page.waitForSelector('[data-testid="export-report"]:not([disabled])', { timeout: 30_000 });
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-report').click()]);
  mkdirSync(DOWNLOADS, { recursive: true });
  const saved = join(DOWNLOADS, name);
  await download.saveAs(saved);
  return saved;
}
