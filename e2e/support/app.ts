// `ramforge serve` and Chromium on its app, for one describe block: started before its tests,
// closed after them. Only reached where Chromium should be (CI, or a machine that has it).
import { afterAll, beforeAll } from 'vitest';
import type { Page } from 'playwright-core';
import { openApp, type Browser } from './browser.js';
import { CHROMIUM, IS_CI, chromiumAvailable } from './env.js';
import { startServe, type Served } from './serve.js';
import { detectCgroup } from '../../src-main/supervisor/index.js';

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

/**
 * Whether a suite that needs Chromium and a memory cgroup (an enforced cap) runs here: always in
 * CI, where a missing one then fails the suite; elsewhere it is skipped, saying why.
 */
export function cappedAppRuns(suite: string): boolean {
  const haveChromium = chromiumAvailable();
  const cgroup = detectCgroup();
  const runs = (haveChromium && cgroup.usable) || IS_CI;
  if (!runs) process.stdout.write(`${suite} e2e: SKIPPED — ${!haveChromium ? `${CHROMIUM} is not installed` : `no memory cgroup can be made here (${cgroup.usable ? '' : cgroup.reason})`}; with CI=true this fails instead\n`);
  return runs;
}

/** servedApp for a suite under an enforced cap: in CI without a memory cgroup it fails, saying so. */
export function cappedServedApp(start: () => Promise<Served> = () => startServe()): ServedApp {
  return servedApp(() => {
    const cgroup = detectCgroup();
    if (!cgroup.usable) throw new Error(`CI=true but no memory cgroup can be made: ${cgroup.reason}`);
    return start();
  });
}
