// The official `ollama` client against a real `ramforge serve --api` (the built CLI, a real
// worker, a synthetic chat model): list, show, version, chat streamed and not with the same
// greedy text, generate, a model name of the client's own served, a bad option as the client's
// own error, and a wrong key refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ollama } from 'ollama';
import { serveApi, stopServed, synthModel, type Served } from './serve-api.test-util.js';

let dir = '';
let server: Served;
const KEY = 'ollama-key-1';

/** What the client throws for an error answer (its ResponseError class is not exported). */
interface ResponseError extends Error {
  error: string;
  status_code: number;
}

const client = (key = KEY) => new Ollama({ host: `http://127.0.0.1:${server.port}`, headers: { Authorization: `Bearer ${key}` } });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-serve-ollama-'));
  server = await serveApi(dir, ['--api-key', KEY, synthModel(dir, 'talk.gguf', ['--seed', '9'])]);
}, 180_000);

afterAll(async () => {
  await stopServed(server);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('ramforge serve --api with the ollama client', () => {
  it('lists the model, shows it, and tells its version', async () => {
    const c = client();
    const list = await c.list();
    expect(list.models.map((m) => m.name)).toEqual(['talk:latest']);
    expect(list.models[0]).toMatchObject({ model: 'talk:latest', details: { format: 'gguf', family: 'llama' } });
    expect(list.models[0]?.size).toBeGreaterThan(0);
    const show = await c.show({ model: 'talk' });
    expect(show.details.family).toBe('llama');
    expect(show.template.length).toBeGreaterThan(0);
    expect(show.capabilities).toContain('completion');
    expect((await c.version()).version).toMatch(/^\d+\.\d+/);
  });

  it('chat, then the same streamed: the same greedy text, done with the counts', async () => {
    const c = client();
    const messages = [{ role: 'user', content: 'Tell me a story.' }];
    const options = { temperature: 0, num_predict: 10 };
    const r = await c.chat({ model: 'talk:latest', messages, options, stream: false });
    expect(r.done).toBe(true);
    expect(r.message.role).toBe('assistant');
    expect(r.message.content.length).toBeGreaterThan(0);
    expect(r.eval_count).toBeLessThanOrEqual(10);
    expect(r.prompt_eval_count).toBeGreaterThan(0);
    expect(r.done_reason).toBe(r.eval_count === 10 ? 'length' : 'stop');

    let streamed = '';
    let last: Awaited<ReturnType<typeof c.chat>> | null = null;
    for await (const part of await c.chat({ model: 'talk', messages, options, stream: true })) {
      streamed += part.message.content;
      last = part;
    }
    expect(streamed).toBe(r.message.content);
    expect(last).toMatchObject({ done: true, done_reason: r.done_reason, eval_count: r.eval_count });
  });

  it('generate, streamed and not, with a stop string cut from the text', async () => {
    const c = client();
    const options = { temperature: 0, num_predict: 12 };
    const full = await c.generate({ model: 'talk', prompt: 'Once upon a time', raw: true, options, stream: false });
    expect(full.done).toBe(true);
    const text = full.response ?? '';
    expect(text.length).toBeGreaterThan(0);
    let streamed = '';
    for await (const part of await c.generate({ model: 'talk', prompt: 'Once upon a time', raw: true, options, stream: true })) streamed += part.response ?? '';
    expect(streamed).toBe(text);
    const at = Math.floor(text.length / 2);
    const stop = text.slice(at, at + 3);
    const cut = await c.generate({ model: 'talk', prompt: 'Once upon a time', raw: true, options: { ...options, stop: [stop] }, stream: false });
    expect(cut.response).toBe(text.slice(0, text.indexOf(stop)));
    expect(cut.done_reason).toBe('stop');
  });

  it("a name of the client's own is the loaded model; a bad option is a 400, as ResponseError with the message; a wrong key is a 401", async () => {
    const named = await client().chat({ model: 'llama3', messages: [{ role: 'user', content: 'hi' }], options: { num_predict: 2 } });
    expect(named.model).toBe('llama3');
    expect(named.done).toBe(true);
    const bad = await client()
      .generate({ model: 'talk', prompt: 'x', options: { temperature: 5 } })
      .catch((e: unknown) => e);
    expect((bad as Error).name).toBe('ResponseError');
    expect((bad as ResponseError).status_code).toBe(400);
    expect((bad as ResponseError).error).toMatch(/options\.temperature/);
    const denied = await client('wrong')
      .list()
      .catch((e: unknown) => e);
    expect((denied as ResponseError).status_code).toBe(401);
    expect(server.child.exitCode).toBeNull();
  });
});
