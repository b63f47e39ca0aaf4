// The official `openai` client against a real `ramforge serve --api` (the built CLI, a real
// worker, synthetic models this test writes): models, chat and text completions streamed and
// not, a bad request, a wrong key, a client that leaves mid-stream, two requests decoded
// together whose greedy text equals each one served alone, a base model whose chat is refused
// with a pointer to /v1/completions, and a few hundred malformed requests after which the
// server still serves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { cliPath } from '../built-cli.test-util.js';
import { serveApi, stopServed, synthModel, type Served } from './serve-api.test-util.js';
import { fuzzCases, runCases, summary } from '../../api/fuzz-cases.test-util.js';

let dir = '';
const KEY = 'test-key-1';
let chatServer: Served;
let baseServer: Served;

const synth = (name: string, args: string[]): string => synthModel(dir, name, args);
const serve = (args: string[]): Promise<Served> => serveApi(dir, args);
const stop = stopServed;

const client = (s: Served, apiKey = KEY) => new OpenAI({ baseURL: s.url, apiKey, maxRetries: 0, timeout: 120_000 });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-serve-api-'));
  const chat = synth('chat.gguf', ['--seed', '5']);
  const base = synth('base.gguf', ['--seed', '6', '--no-chat-template']);
  [chatServer, baseServer] = await Promise.all([serve(['--parallel', '2', '--api-key', KEY, chat]), serve([base])]);
}, 180_000);

afterAll(async () => {
  await Promise.all([stop(chatServer), stop(baseServer)]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('ramforge serve --api with the openai client', () => {
  it('prints where it listens and lists the model', async () => {
    expect(chatServer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(chatServer.out()).toMatch(/requests need: Authorization: Bearer <key>/);
    const models = await client(chatServer).models.list();
    expect(models.data.map((m) => m.id)).toEqual(['chat']);
    expect(models.data[0]).toMatchObject({ object: 'model', owned_by: 'ramforge' });
  });

  it('chat completion, then the same streamed: the same greedy text, usage, finish reason', async () => {
    const c = client(chatServer);
    const messages = [{ role: 'user' as const, content: 'Tell me a story.' }];
    const r = await c.chat.completions.create({ model: 'chat', messages, max_tokens: 12, temperature: 0 });
    const text = r.choices[0]?.message.content ?? '';
    expect(r.object).toBe('chat.completion');
    expect(r.choices[0]?.finish_reason).toBe('length');
    expect(text.length).toBeGreaterThan(0);
    expect(r.usage).toMatchObject({ completion_tokens: 12 });
    expect(r.usage?.total_tokens).toBe((r.usage?.prompt_tokens ?? 0) + 12);

    const stream = await c.chat.completions.create({ model: 'chat', messages, max_tokens: 12, temperature: 0, stream: true, stream_options: { include_usage: true } });
    let streamed = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined = null;
    for await (const chunk of stream) {
      streamed += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(streamed).toBe(text);
    expect(finish).toBe('length');
    expect(usage).toEqual(r.usage);
  });

  it('text completion, streamed and not, with a stop string cut from the text', async () => {
    const c = client(chatServer);
    const full = await c.completions.create({ model: 'chat', prompt: 'Once upon a time', max_tokens: 16, temperature: 0 });
    const text = full.choices[0]?.text ?? '';
    expect(full.object).toBe('text_completion');
    let streamed = '';
    for await (const chunk of await c.completions.create({ model: 'chat', prompt: 'Once upon a time', max_tokens: 16, temperature: 0, stream: true })) streamed += chunk.choices[0]?.text ?? '';
    expect(streamed).toBe(text);
    // A stop string from the middle of the text: the answer ends right before it.
    const stopAt = Math.floor(text.length / 2);
    const stop = text.slice(stopAt, stopAt + 3);
    const cut = await c.completions.create({ model: 'chat', prompt: 'Once upon a time', max_tokens: 16, temperature: 0, stop: [stop] });
    expect(cut.choices[0]?.text).toBe(text.slice(0, text.indexOf(stop)));
    expect(cut.choices[0]?.finish_reason).toBe('stop');
  });

  it('a bad request is a 400 and a wrong key a 401, as the client\'s own error classes', async () => {
    const bad = await client(chatServer)
      .chat.completions.create({ model: 'chat', messages: [], max_tokens: 4 })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect((bad as InstanceType<typeof OpenAI.BadRequestError>).status).toBe(400);
    const negative = await client(chatServer)
      .completions.create({ model: 'chat', prompt: 'x', max_tokens: -1 })
      .catch((e: unknown) => e);
    expect(negative).toBeInstanceOf(OpenAI.BadRequestError);
    const wrong = await client(chatServer, 'not-the-key')
      .models.list()
      .catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((wrong as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401);
    // A name of the client's own is the loaded model (llama-server's rule: serve-clients.test.ts).
    const named = await client(chatServer).completions.create({ model: 'gpt-4o', prompt: 'x', max_tokens: 2 });
    expect(named.model).toBe('chat');
  });

  it('a client that aborts mid-stream frees its sequence; the server stays healthy and the next request succeeds', async () => {
    const c = client(chatServer);
    const before = await c.completions.create({ model: 'chat', prompt: 'The sea', max_tokens: 6, temperature: 0 });
    const stream = await c.completions.create({ model: 'chat', prompt: 'The sea', max_tokens: 100_000, temperature: 0, stream: true });
    let n = 0;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.text) n++;
      if (n === 3) break; // leaving the loop aborts the request
    }
    expect(n).toBe(3);
    // Both sequences must be free again: two requests at once complete (a held sequence would leave one waiting behind 100 000 tokens).
    const [a, b] = await Promise.all([
      c.completions.create({ model: 'chat', prompt: 'The sea', max_tokens: 6, temperature: 0 }),
      c.completions.create({ model: 'chat', prompt: 'The sea', max_tokens: 6, temperature: 0 }),
    ]);
    expect(a.choices[0]?.text).toBe(before.choices[0]?.text);
    expect(b.choices[0]?.text).toBe(before.choices[0]?.text);
    expect(chatServer.child.exitCode).toBeNull();
  });

  it('with --parallel 2, two requests decode together and each gets exactly its solo greedy text', async () => {
    const c = client(chatServer);
    const prompts = ['In the beginning', 'The quick brown fox'];
    const solo: string[] = [];
    for (const p of prompts) solo.push((await c.completions.create({ model: 'chat', prompt: p, max_tokens: 24, temperature: 0 })).choices[0]?.text ?? '');
    const together = await Promise.all(prompts.map((p) => c.completions.create({ model: 'chat', prompt: p, max_tokens: 24, temperature: 0 })));
    expect(together.map((r) => r.choices[0]?.text)).toEqual(solo);
    expect(together.map((r) => r.usage?.completion_tokens)).toEqual([24, 24]);
    expect(chatServer.out()).not.toMatch(/parallel \d \(/); // --parallel was given: nothing chosen
  });

  it("a base model (no chat template): chat falls back to ChatML, as llama-server does; completions work", async () => {
    const c = client(baseServer, 'anything');
    const chatted = await c.chat.completions.create({ model: 'base', messages: [{ role: 'user', content: 'hi' }], max_tokens: 2, temperature: 0 });
    const raw = await c.completions.create({ model: 'base', prompt: 'hi', max_tokens: 1 });
    expect(chatted.usage?.completion_tokens).toBe(2);
    // The turn was wrapped in ChatML's <|im_start|>user … <|im_start|>assistant, not sent bare.
    expect(chatted.usage?.prompt_tokens).toBeGreaterThan((raw.usage?.prompt_tokens ?? 0) + 4);
    const r = await c.completions.create({ model: 'base', prompt: 'Once upon a time', max_tokens: 5, temperature: 0 });
    expect(r.choices[0]?.text.length).toBeGreaterThan(0);
    // Without --parallel under --api, the plan chose the sequences and said so.
    expect(baseServer.out()).toMatch(/ramforge serve: parallel [124] \(/);
  });

  it('survives a few hundred malformed requests (each a 4xx) and serves after them', async () => {
    const cases = fuzzCases(0x5e7e, 300, baseServer.port, 'base', { slow: 2, big: 2, structured: 40, nativeGrammar: true });
    const out = await runCases(baseServer.port, cases, 8, 25_000);
    process.stdout.write(`API fuzz (ramforge serve --api child): ${out.length} cases\n  ${summary(out)}\n`);
    expect(out.filter((o) => o.problem !== null).slice(0, 10).map((p) => `${p.kind} ${p.detail}: ${p.problem}`)).toEqual([]);
    expect(baseServer.child.exitCode).toBeNull();
    const r = await client(baseServer).completions.create({ model: 'base', prompt: 'Once', max_tokens: 3, temperature: 0 });
    expect(r.usage?.completion_tokens).toBe(3);
  }, 120_000);

  it("plain ramforge serve (browser mode, the app) turns the API on when the app's setting says so", async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    const data = join(dir, 'data-setting');
    await mkdir(data, { recursive: true });
    await writeFile(join(data, 'api-server.json'), JSON.stringify({ enabled: true, port, apiKey: null }));
    const child = spawn(process.execPath, [cliPath(), 'serve', '--port', '0', '--renderer', join(dir, 'no-renderer')], {
      env: { ...process.env, RAMFORGE_DATA: data },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
    try {
      for (let i = 0; i < 300 && !/OpenAI-compatible API on/.test(out); i++) await new Promise((r) => setTimeout(r, 100));
      expect(out).toContain(`OpenAI-compatible API on http://127.0.0.1:${port}/v1 (the app's setting)`);
      const r = await fetch(`http://127.0.0.1:${port}/v1/models`);
      expect(await r.json()).toEqual({ object: 'list', data: [] });
    } finally {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    }
  });
});
