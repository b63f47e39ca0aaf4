// Model discovery and plan-before-download in the real app (browser mode, Chromium): the
// sidebar lists the models of a fake home (Ollama, LM Studio, Hugging Face, llama.cpp,
// Downloads layouts) with their verdicts, picks up a model copied into a watched folder, and a
// pasted URL served by a loopback server shows its plan from the header alone.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumAvailable, IS_CI } from './support/env.js';
import { screenshot } from './support/browser.js';
import { servedApp } from './support/app.js';
import { startServe } from './support/serve.js';
import { synthModel } from './support/models.js';
import { buildFakeHome, DISCOVERY_ENV_KEYS, type Expected } from '../src-main/node/discovery/fake-home.test-util.js';
import { RangeServer } from '../src-main/node/remote/range-server.test-util.js';
import { tinyModel } from '../src-main/shared/gguf/tiny-models.test-util.js';
import { parseGgufHeader } from '../src-main/shared/gguf/reader.js';
import { RANGE_STEP_BYTES } from '../src-main/node/remote/remote-gguf.js';
import { cacheRoot } from '../src-main/node/paths.js';

const haveChromium = chromiumAvailable();

describe.runIf(haveChromium || IS_CI)('model discovery and plan before download, in Chromium', () => {
  let tmp = '';
  let home = '';
  let expected: Expected[] = [];
  let model: Buffer;
  const http = new RangeServer();
  // Registered before the app's own hooks, so it runs after they closed the browser and server
  // (after-hooks run in reverse order).
  afterAll(async () => {
    await http.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });
  const app = servedApp(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'ramforge-e2e-discovery-'));
    home = join(tmp, 'home');
    // The added-folder entry is not part of this run (no folder is added).
    expected = (await buildFakeHome(home, join(tmp, 'extra'))).filter((e) => e.source !== 'folder');
    model = readFileSync(synthModel('tiny'));
    await http.start();
    http.files.set('/org/tiny-GGUF/resolve/main/tiny-q4_0.gguf', { bytes: model });
    const env: NodeJS.ProcessEnv = { HOME: home, RAMFORGE_CACHE: cacheRoot() };
    for (const k of DISCOVERY_ENV_KEYS) if (k !== 'RAMFORGE_DATA') env[k] = '';
    return startServe([], env);
  });
  const byId = (id: string) => app.page.getByTestId(id);

  async function listed(): Promise<{ source: string; name: string; kind: string; verdict: string; disabled: boolean }[]> {
    return byId('discovered-item').evaluateAll((els) =>
      els.map((el) => ({
        source: el.getAttribute('data-source') ?? '',
        name: el.querySelector('.title')?.textContent ?? '',
        kind: el.getAttribute('data-kind') ?? '',
        verdict: el.getAttribute('data-verdict') ?? '',
        disabled: (el as HTMLButtonElement).disabled,
      })),
    );
  }

  it('the sidebar lists the models found, grouped by source, each with its kind and verdict', async () => {
    await app.page.waitForFunction((n) => document.querySelectorAll('[data-testid="discovered-item"]').length >= n, expected.length, { timeout: 60_000 });
    const items = (await listed()).filter((x) => x.source !== 'ramforge');
    expect(items.map((x) => `${x.source} ${x.name}`).sort()).toEqual(expected.map((e) => `${e.source} ${e.name}`).sort());
    for (const e of expected) {
      const x = items.find((i) => i.source === e.source && i.name === e.name)!;
      expect(x.kind, e.name).toBe(e.kind);
      // Chat models can be opened and carry a verdict; the others are labelled, not offered.
      expect(x.disabled, e.name).toBe(e.kind !== 'model');
      if (e.kind === 'model') expect(['fits', 'out-of-core', 'cannot-run']).toContain(x.verdict);
    }
    const groups = await byId('discovery-group').evaluateAll((els) => els.map((el) => el.getAttribute('data-source')));
    expect(groups).toEqual(['ollama', 'lmstudio', 'huggingface', 'llama.cpp', 'downloads']);
    await screenshot(app.page, 'discovered-models');
  });

  it('the verdicts follow the RAM budget of the settings', async () => {
    await byId('setting-ram').fill('1M');
    await app.page.waitForFunction(() => {
      const v = [...document.querySelectorAll('[data-testid="discovered-item"][data-kind="model"]')].map((e) => e.getAttribute('data-verdict'));
      return v.length > 0 && v.every((x) => x === 'cannot-run');
    }, undefined, { timeout: 60_000 });
    await byId('setting-ram').fill('');
  });

  it('a model copied into a watched folder appears without a refresh', async () => {
    const dir = join(home, '.lmstudio', 'models', 'newcomer', 'Fresh-GGUF');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'fresh.gguf'), tinyModel({ name: 'fresh' }));
    await app.page.waitForSelector('[data-testid="discovered-item"][data-source="lmstudio"]:has-text("newcomer/Fresh-GGUF/fresh.gguf")', { timeout: 30_000 });
  });

  it('a folder added in the sidebar is searched too', async () => {
    await byId('model-folder-input').fill(join(tmp, 'extra'));
    await byId('model-folder-add').click();
    await app.page.waitForSelector('[data-testid="discovered-item"][data-source="folder"]:has-text("nested/mine.gguf")', { timeout: 60_000 });
  });

  it('a discovered chat model opens with its plan', async () => {
    await app.page.locator('[data-testid="discovered-item"][data-source="ollama"]:has-text("tinyllama:latest")').click();
    await byId('model-name').waitFor({ timeout: 60_000 });
    expect(await byId('model-name').textContent()).toMatch(/ollama-tiny-llama/);
    await byId('plan-verdict').waitFor({ timeout: 60_000 });
  });

  it('pasting a URL shows its plan, from range requests for the header only', async () => {
    http.reset();
    const url = http.url('/org/tiny-GGUF/resolve/main/tiny-q4_0.gguf');
    await byId('model-url-input').fill(url);
    await byId('model-url-plan').click();
    await app.page.waitForFunction(() => /ramforge-synth-llama-tiny/.test(document.querySelector('[data-testid="model-name"]')?.textContent ?? ''), undefined, { timeout: 60_000 });
    await byId('plan-verdict').waitFor({ timeout: 60_000 });
    expect(await byId('plan-verdict').textContent()).toMatch(/fits|out-of-core|cannot-run/);
    await byId('plan-toks').waitFor();
    await screenshot(app.page, 'url-plan');
    // Two header reads (the inspection and the plan), each at most the header plus one range step.
    const { dataOffset } = parseGgufHeader(model, model.length);
    expect(http.seen.length).toBeGreaterThan(0);
    expect(http.seen.every((q) => q.status === 206 && /^bytes=\d+-\d+$/.test(q.range ?? ''))).toBe(true);
    expect(http.bytesSent()).toBeLessThanOrEqual(2 * (dataOffset + RANGE_STEP_BYTES));
    expect(http.bytesSent()).toBeLessThan(model.length);
  });

  it('the pasted URL downloads into RAMforge\'s folder, with progress, and is then listed', async () => {
    await byId('url-pull-start').click();
    await app.page.waitForSelector('[data-testid="url-pull"][data-state="done"]', { timeout: 120_000 });
    expect(await byId('url-pull-result').textContent()).toMatch(/Saved .*models\/tiny-q4_0\.gguf/);
    expect(readFileSync(join(app.served.dataDir, 'models', 'tiny-q4_0.gguf')).equals(model)).toBe(true);
    await app.page.waitForSelector('[data-testid="discovered-item"][data-source="ramforge"]:has-text("tiny-q4_0.gguf")', { timeout: 30_000 });
    await screenshot(app.page, 'url-pulled');
  });
});
