// Debian's Chromium through playwright-core, with a fresh profile per run.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, SCREENSHOTS } from './env.js';

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'ramforge-e2e-profile-'));
  // launchPersistentContext is how Playwright takes a --user-data-dir: a fresh, empty one here.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    acceptDownloads: true,
    viewport: { width: 1400, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Chromium on the app `ramforge serve` serves at `url`, once the app has rendered. */
export async function openApp(url: string): Promise<Browser> {
  const b = await launchChromium();
  await b.page.goto(url);
  await b.page.getByTestId('app-root').waitFor({ timeout: 30_000 });
  return b;
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Drops a file on an element the way a user's drag and drop does (a real File in a DataTransfer). */
export async function dropFile(page: Page, testId: string, name: string, bytes: Buffer): Promise<void> {
  const dt = await page.evaluateHandle(
    ({ b64, fileName }) => {
      const bin = atob(b64);
      const arr = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) arr[i] = bin.charCodeAt(i);
      const transfer = new DataTransfer();
      transfer.items.add(new File([arr], fileName, { type: 'application/octet-stream' }));
      return transfer;
    },
    { b64: bytes.toString('base64'), fileName: name },
  );
  const target = page.getByTestId(testId);
  await target.dispatchEvent('dragenter', { dataTransfer: dt });
  await target.dispatchEvent('dragover', { dataTransfer: dt });
  await target.dispatchEvent('drop', { dataTransfer: dt });
  await dt.dispose();
}
