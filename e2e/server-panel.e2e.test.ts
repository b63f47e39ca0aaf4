// The dashboard's API server panel against the real `ramforge serve --api` (browser mode,
// Chromium): the panel shows where the API listens, and after a client's request through the
// OpenAI-compatible API its figures and chart come from the server's own statistics. Then the
// sidebar setting turns the app's own API server on and off.
import { describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { chromiumAvailable, IS_CI } from './support/env.js';
import { screenshot } from './support/browser.js';
import { servedApp } from './support/app.js';
import { startServe } from './support/serve.js';
import { synthModel } from './support/models.js';

const haveChromium = chromiumAvailable();

async function until<T>(get: () => T | null, timeout: number, what: string): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = get();
    if (v !== null) return v;
    if (Date.now() - t0 > timeout) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

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

describe.runIf(haveChromium || IS_CI)('the API server on the dashboard, in Chromium', () => {
  let apiUrl = '';
  const app = servedApp(async () => {
    const served = await startServe(['--api', '--api-port', '0', '--parallel', '2', synthModel('tiny')]);
    apiUrl = await until(() => /OpenAI-compatible API on (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(served.log())?.[1] ?? null, 60_000, 'the API address');
    await until(() => (/loaded /.test(served.log()) ? true : null), 120_000, 'the model to load');
    return served;
  });
  const byId = (id: string) => app.page.getByTestId(id);

  it('shows where the API listens', async () => {
    await byId('nav-dashboard').click();
    await app.page.waitForSelector('[data-testid="server-panel"][data-state="on"]', { timeout: 30_000 });
    expect(await byId('server-url').textContent()).toBe(apiUrl);
    // The server's figures arrive about once a second while it listens: the model's two sequences, none busy.
    await app.page.waitForFunction(() => document.querySelector('[data-testid="server-active"]')?.textContent === '0 / 2', undefined, { timeout: 30_000 });
    expect(await byId('server-queued').textContent()).toBe('0');
  });

  it('a client request through the API shows in the figures and the chart', async () => {
    const models = (await (await fetch(`${apiUrl}/models`)).json()) as { data: { id: string }[] };
    const res = await fetch(`${apiUrl}/completions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: models.data[0]!.id, prompt: 'Once upon a time', max_tokens: 24, temperature: 0 }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { choices: { text: string }[] };
    expect(body.choices[0]!.text.length).toBeGreaterThan(0);
    await app.page.waitForFunction(() => Number(document.querySelector('[data-testid="server-completed"]')?.textContent) >= 1, undefined, { timeout: 30_000 });
    await app.page.waitForFunction(() => Number(document.querySelector('[data-testid="server-chart"]')?.getAttribute('data-points')) >= 1, undefined, { timeout: 30_000 });
    expect(await byId('server-refused').textContent()).toBe('0');
    await byId('server-panel').scrollIntoViewIfNeeded();
    await screenshot(app.page, 'server-panel');
  });
});

describe.runIf(haveChromium || IS_CI)('the OpenAI-compatible API setting, in Chromium', () => {
  const app = servedApp(async () => {
    const served = await startServe([synthModel('tiny')]);
    await until(() => (/loaded /.test(served.log()) ? true : null), 120_000, 'the model to load');
    return served;
  });
  const byId = (id: string) => app.page.getByTestId(id);

  it('turning it on serves the loaded model on the port set; turning it off stops it', async () => {
    await byId('nav-dashboard').click();
    await app.page.waitForSelector('[data-testid="server-panel"][data-state="off"]', { timeout: 30_000 });
    expect(await byId('api-url').textContent()).toBe('off');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/v1`;
    await byId('api-port').fill(String(port));
    await byId('api-enabled').check();
    await app.page.waitForFunction((u) => document.querySelector('[data-testid="api-url"]')?.textContent === u, url, { timeout: 30_000 });
    await app.page.waitForSelector('[data-testid="server-panel"][data-state="on"]', { timeout: 30_000 });
    expect(await byId('server-url').textContent()).toBe(url);
    expect(await byId('api-error').count()).toBe(0);
    const models = await fetch(`${url}/models`);
    expect(models.status).toBe(200);
    await byId('api-enabled').uncheck();
    await app.page.waitForSelector('[data-testid="server-panel"][data-state="off"]', { timeout: 30_000 });
    expect(await byId('api-url').textContent()).toBe('off');
    await expect(fetch(`${url}/models`)).rejects.toThrow();
  });

  it("CORS origins: a page of a listed origin gets its preflight answered and can read the answers; another origin cannot; a bad origin is refused with serve --cors's reason", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/v1`;
    const preflight = (origin: string) => fetch(`${url}/chat/completions`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    await byId('api-port').fill(String(port));
    await byId('api-cors').fill('https://chat.example, http://localhost:3000');
    await byId('api-enabled').check();
    await app.page.waitForFunction((u) => document.querySelector('[data-testid="api-url"]')?.textContent === u, url, { timeout: 30_000 });
    const allowed = await preflight('http://localhost:3000');
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    const models = await fetch(`${url}/models`, { headers: { origin: 'https://chat.example' } });
    expect(models.headers.get('access-control-allow-origin')).toBe('https://chat.example');
    expect((await preflight('https://other.example')).headers.get('access-control-allow-origin')).toBeNull();
    // Kept: the field shows the origins the server runs with.
    expect(await byId('api-cors').inputValue()).toBe('https://chat.example, http://localhost:3000');
    await byId('api-cors').fill('chat.example');
    await byId('api-apply').click();
    await app.page.waitForSelector('[data-testid="api-error"]', { timeout: 30_000 });
    expect(await byId('api-error').textContent()).toMatch(/^CORS origins: 'chat\.example' is not an origin/);
    // Emptied: no origin is let in.
    await byId('api-cors').fill('');
    await byId('api-apply').click();
    // The host restarts the server with the new list; until it has, the old one answers.
    const t0 = Date.now();
    let allowedNow: string | null = 'http://localhost:3000';
    while (allowedNow !== null && Date.now() - t0 < 30_000) {
      allowedNow = await preflight('http://localhost:3000').then((r) => r.headers.get('access-control-allow-origin'), () => 'restarting');
      if (allowedNow !== null) await new Promise((r) => setTimeout(r, 200));
    }
    expect(allowedNow).toBeNull();
    expect(await byId('api-error').count()).toBe(0);
    await byId('api-enabled').uncheck();
  });

  it("llama-server's server-wide options from the sidebar: sampling defaults, model names and tags, GET /slots off, embeddings without pooling; a wrong default is refused with its reason", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/v1`;
    await byId('api-port').fill(String(port));
    await byId('api-defaults').fill('seed=42, max-tokens=5, temp=0.3');
    await byId('api-alias').fill('zeta, code');
    await byId('api-tags').fill('chat');
    await byId('api-slots').uncheck();
    await byId('api-pooling-none').check();
    await byId('api-enabled').check();
    await app.page.waitForFunction((u) => document.querySelector('[data-testid="api-url"]')?.textContent === u, url, { timeout: 30_000 });
    const props = (await (await fetch(`http://127.0.0.1:${port}/props`)).json()) as { model_alias: string; default_generation_settings: { params: Record<string, unknown> } };
    expect(props.default_generation_settings.params).toMatchObject({ seed: 42, n_predict: 5, temperature: 0.3 });
    expect(props.model_alias).toBe('code');
    const models = (await (await fetch(`${url}/models`)).json()) as { data: { id: string; aliases: string[]; tags: string[] }[] };
    expect(models.data[0]).toMatchObject({ id: 'code', aliases: ['zeta', 'code'], tags: ['chat'] });
    const done = (await (await fetch(`${url}/completions`, { method: 'POST', body: JSON.stringify({ prompt: 'Once upon a time' }) })).json()) as { usage: { completion_tokens: number } };
    expect(done.usage.completion_tokens).toBe(5);
    expect((await fetch(`http://127.0.0.1:${port}/slots`)).status).toBe(501);
    // serve --pooling none: OpenAI's route holds one vector per text, so it answers llama-server's 400.
    const embedded = await fetch(`${url}/embeddings`, { method: 'POST', body: JSON.stringify({ input: 'hi' }) });
    expect([embedded.status, await embedded.text()]).toEqual([400, expect.stringMatching(/Pooling type 'none' is not OAI compatible/)]);
    // Kept: the fields show what the server runs with, as the flags name it.
    expect(await byId('api-defaults').inputValue()).toBe('temperature=0.3, seed=42, max-tokens=5');
    await byId('api-defaults').fill('temperature=hot');
    await byId('api-apply').click();
    await app.page.waitForSelector('[data-testid="api-error"]', { timeout: 30_000 });
    expect(await byId('api-error').textContent()).toMatch(/^temperature must be a number from 0 to 100/);
    // Emptied: each API's own defaults again (the switch applies the whole form, so it comes first).
    await byId('api-defaults').fill('');
    await byId('api-alias').fill('');
    await byId('api-tags').fill('');
    await byId('api-slots').check();
    await byId('api-pooling-none').uncheck();
    await byId('api-apply').click();
    await app.page.waitForFunction(() => document.querySelector('[data-testid="api-error"]') === null, undefined, { timeout: 30_000 });
    await byId('api-enabled').uncheck();
  });
});
