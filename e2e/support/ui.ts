// Steps many e2e tests take through the UI, written once: load the open model and wait for the
// engine to be ready (failing with what the UI said otherwise), and send one chat message and
// wait for its reply to finish streaming.
import { expect } from 'vitest';
import type { Page } from 'playwright-core';

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
