// A model whose own chat template is hostile (nested loops of ten billion turns that print
// nothing, run only when a request brings tools) on a real `ramforge serve --api` (the built
// CLI, a real worker): the tool request is a 400 naming the bound, within the render's bounds,
// and the same server, with the same worker process, then answers a plain chat.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { TOOLS_CHATML_TEMPLATE } from '../../synth/chat-templates.js';
import { childPids } from '../built-cli.test-util.js';
import { serveApi, stopServed, synthModel, type Served } from './serve-api.test-util.js';

const HOSTILE = '{%- if tools %}{%- for i in range(100000) %}{%- for j in range(100000) %}{%- endfor %}{%- endfor %}{%- endif %}' + TOOLS_CHATML_TEMPLATE;
const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];

let dir = '';
let served: Served;

/** The inference worker among the server's children (the render process is the worker's child, not the server's). */
async function workerPids(serverPid: number): Promise<number[]> {
  const out: number[] = [];
  for (const pid of childPids(serverPid)) {
    const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmd.includes('worker.mjs')) out.push(pid);
  }
  return out;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-serve-template-'));
  const template = join(dir, 'hostile.jinja');
  await writeFile(template, HOSTILE);
  const model = synthModel(dir, 'hostile.gguf', ['--arch', 'qwen2', '--seed', '5', '--chat-template-file', template]);
  served = await serveApi(dir, ['--parallel', '1', '--ctx', '512', model]);
}, 180_000);

afterAll(async () => {
  await stopServed(served);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('serve --api with a hostile chat template', () => {
  it('answers the request that runs the loop with a 400, then serves a plain chat with the same worker', async () => {
    // A hang is this timeout: the request never comes back on a renderer without bounds.
    const client = new OpenAI({ baseURL: served.url, apiKey: 'none', maxRetries: 0, timeout: 60_000 });
    const before = await workerPids(served.child.pid as number);
    expect(before).toHaveLength(1);
    const e = await client.chat.completions.create({ model: 'hostile', messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools, max_tokens: 4 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OpenAI.APIError);
    expect(e).toMatchObject({ status: 400, param: 'messages', code: 'chat_template_failed' });
    expect((e as Error).message).toMatch(/steps|longer than \d+ s|MiB/);
    const ok = await client.chat.completions.create({ model: 'hostile', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4, temperature: 0 });
    expect(ok.choices[0]?.message.content?.length).toBeGreaterThan(0);
    expect(await workerPids(served.child.pid as number)).toEqual(before);
  }, 120_000);
});
