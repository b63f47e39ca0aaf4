// `ramforge serve` and Chromium on its app, for one describe block: started before its tests,
// closed after them. Only reached where Chromium should be (CI, or a machine that has it).
import { afterAll, beforeAll } from 'vitest';
import type { Page } from 'playwright-core';
import { openApp, type Browser } from './browser.js';
import { CHROMIUM, chromiumAvailable } from './env.js';
import type { Served } from './serve.js';

export interface ServedApp {
  served: Served;
  browser: Browser;
  page: Page;
}

/** `start` prepares what the suite needs and starts the server; the app opens on its address. */
export function servedApp(start: () => Promise<Served>): ServedApp {
  const app = {} as ServedApp;
  beforeAll(async () => {
    if (!chromiumAvailable()) throw new Error(`${CHROMIUM} is missing and CI=true: install the chromium package`);
    app.served = await start();
    app.browser = await openApp(app.served.url);
    app.page = app.browser.page;
  });
  afterAll(async () => {
    await app.browser?.close();
    await app.served?.stop();
  });
  return app;
}
