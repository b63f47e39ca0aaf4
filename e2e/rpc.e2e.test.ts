// Layers on other machines, in the app: two `ramforge rpc-server` nodes on loopback, each under
// a cap that holds less than half the model, named in the run settings. The plan view shows what
// each node holds; a reply streams with the local cap enforced; the dashboard shows each node's
// bytes per token and the time waited on it. A node frozen mid-reply (its kernel still answers
// TCP) or killed mid-reply ends the reply with a message naming the node, and the app stays up
// (it answers, and loads again).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, IS_CI, chromiumAvailable } from './support/env.js';
import { screenshot } from './support/browser.js';
import { chatOnce, loadAndWait } from './support/ui.js';
import { servedApp } from './support/app.js';
import { startServe } from './support/serve.js';
import { synthModel } from './support/models.js';
import { startRpcNode, type RpcNode } from './support/rpc-nodes.js';
import { detectCgroup } from '../src-main/supervisor/index.js';
import { RPC_STEP_MIN_MS } from '../src-main/shared/settings/run-settings.js';

const haveChromium = chromiumAvailable();
const cgroup = detectCgroup();
const canRun = (haveChromium && cgroup.usable) || IS_CI;
if (!canRun) {
  process.stdout.write(`rpc e2e: SKIPPED — ${!haveChromium ? `${CHROMIUM} is not installed` : `no memory cgroup can be made here (${cgroup.usable ? '' : cgroup.reason})`}; with CI=true this fails instead\n`);
}

const MiB = 2 ** 20;

describe.runIf(canRun)('a model split across RPC nodes, through the UI', () => {
  let nodes: RpcNode[] = [];
  beforeAll(async () => {
    if (!cgroup.usable) throw new Error(`CI=true but no memory cgroup can be made: ${cgroup.reason}`);
    // The small preset (132.7 MiB): each node offers 60 MiB.
    nodes = [await startRpcNode(60 * MiB), await startRpcNode(60 * MiB)];
  }, 120_000);
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
  });
  const app = servedApp(() => startServe());
  const byId = (id: string) => app.page.getByTestId(id);

  it('the plan names what each node holds, a reply streams under the local cap, the dashboard shows the network per node', async () => {
    const model = synthModel('small');
    await byId('file-input').setInputFiles(model);
    await byId('model-name').waitFor({ timeout: 180_000 });
    await byId('setting-ram').fill('100M');
    await byId('setting-enforce').check();
    await byId('setting-rpc').fill(nodes.map((n) => n.endpoint).join(', '));
    await byId('setting-rpc').press('Enter');
    // The plan asked each node what it offers and placed the last layers there.
    await app.page.waitForSelector('[data-testid="plan-remote"]', { timeout: 60_000 });
    const planText = (await byId('plan-remote').textContent()) ?? '';
    for (const n of nodes) expect(planText).toContain(`${n.endpoint}: layers`);
    await screenshot(app.page, 'rpc-plan');

    await loadAndWait(app.page);

    await chatOnce(app.page, 16);
    expect(((await byId('assistant-message').last().textContent()) ?? '').trim().length).toBeGreaterThan(0);

    await byId('nav-dashboard').click();
    await byId('network-panel').waitFor({ timeout: 30_000 });
    const rows = byId('network-node');
    expect(await rows.count()).toBe(2);
    for (let i = 0; i < 2; i++) {
      const row = rows.nth(i);
      expect(await row.getAttribute('data-endpoint')).toBe(nodes[i]!.endpoint);
      expect(Number(await row.getAttribute('data-sent-per-token'))).toBeGreaterThan(4096);
      expect(Number(await row.getAttribute('data-wait-ms-per-token'))).toBeGreaterThan(0);
    }
    expect(await byId('cgroup-chart').getAttribute('data-oom')).toBe('false');
    await screenshot(app.page, 'rpc-dashboard');
  }, 600_000);

  it('a node frozen mid-reply (SIGSTOP) brings up the banner naming it within the step deadline; thawed, the model loads again', async () => {
    const [healthy, victim] = nodes as [RpcNode, RpcNode];
    await byId('new-conversation').click();
    await byId('nav-chat').click();
    await byId('chat-max-tokens').fill('4000');
    await byId('chat-input').fill('Once upon a time');
    await byId('chat-send').click();
    await app.page.waitForFunction(
      () => {
        const all = document.querySelectorAll('[data-testid="assistant-message"]');
        return (all[all.length - 1]?.textContent ?? '').length > 20;
      },
      undefined,
      { timeout: 120_000 },
    );
    const frozenAt = Date.now();
    victim.freezeServer();
    try {
      // The deadline (at least RPC_STEP_MIN_MS), the kill, the nodes asked (1.5 s), slack.
      await byId('worker-crashed-banner').waitFor({ timeout: RPC_STEP_MIN_MS + 20_000 });
      expect(Date.now() - frozenAt).toBeLessThan(RPC_STEP_MIN_MS + 10_000);
      await app.page.waitForFunction((ep) => (document.querySelector('[data-testid="worker-crashed-banner"]')?.textContent ?? '').includes(`RPC node ${ep}: no answer`), victim.endpoint, { timeout: 10_000 });
      const banner = (await byId('worker-crashed-banner').textContent()) ?? '';
      expect(banner).toMatch(/no progress for [\d.]+ s/);
      expect(banner).not.toContain(`RPC node ${healthy.endpoint}:`);
      await screenshot(app.page, 'rpc-node-frozen');
    } finally {
      victim.thawServer();
    }
    // Thawed, llama.cpp's server answers the worker that is gone (SIGPIPE may end it): a fresh
    // node takes its place, and the app loads the model on the two again.
    await victim.stop();
    nodes[1] = await startRpcNode(60 * MiB);
    await byId('nav-inspect').click();
    await byId('setting-rpc').fill(nodes.map((n) => n.endpoint).join(', '));
    await byId('setting-rpc').press('Enter');
    await byId('load-model').click();
    await app.page.waitForSelector('[data-testid="engine-status"][data-status="ready"], [data-testid="load-error"]', { timeout: 240_000 });
    const why = [...(await byId('engine-message').allTextContents()), ...(await byId('load-error').allTextContents())].join(' ');
    expect(await byId('engine-status').getAttribute('data-status'), why).toBe('ready');
  }, 600_000);

  it('a node killed mid-reply ends the reply naming the node; the app stays up and loads again without it', async () => {
    const victim = nodes[1] as RpcNode;
    await byId('new-conversation').click();
    await byId('nav-chat').click();
    await byId('chat-max-tokens').fill('4000');
    await byId('chat-input').fill('Once upon a time');
    await byId('chat-send').click();
    // Once text streams, the node's server dies.
    await app.page.waitForFunction(
      () => {
        const all = document.querySelectorAll('[data-testid="assistant-message"]');
        return (all[all.length - 1]?.textContent ?? '').length > 20;
      },
      undefined,
      { timeout: 120_000 },
    );
    const killedAt = Date.now();
    victim.killServer();
    await byId('worker-crashed-banner').waitFor({ timeout: 10_000 });
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    await app.page.waitForFunction((ep) => (document.querySelector('[data-testid="worker-crashed-banner"]')?.textContent ?? '').includes(`RPC node ${ep}`), victim.endpoint, { timeout: 10_000 });
    await screenshot(app.page, 'rpc-node-lost');
    // The app answers and loads the model again on the node that is left.
    await byId('nav-inspect').click();
    await byId('setting-rpc').fill(nodes[0]!.endpoint);
    await byId('setting-rpc').press('Enter');
    await byId('load-model').click();
    await app.page.waitForSelector('[data-testid="engine-status"][data-status="ready"], [data-testid="load-error"]', { timeout: 240_000 });
    const why = [...(await byId('engine-message').allTextContents()), ...(await byId('load-error').allTextContents())].join(' ');
    expect(await byId('engine-status').getAttribute('data-status'), why).toBe('ready');
  }, 600_000);

  it('a node that is not there is refused before anything loads, naming it; nothing crashes', async () => {
    const gone = nodes[1] as RpcNode;
    await byId('nav-inspect').click();
    await byId('setting-rpc').fill(gone.endpoint);
    await byId('setting-rpc').press('Enter');
    await byId('load-model').click();
    await byId('load-error').waitFor({ timeout: 120_000 });
    const text = (await byId('load-error').textContent()) ?? '';
    expect(text).toContain(`RPC node ${gone.endpoint}: connection refused`);
    expect(text).toContain('Nothing was loaded');
    expect(await byId('worker-crashed-banner').count()).toBe(0);
  }, 300_000);
});
