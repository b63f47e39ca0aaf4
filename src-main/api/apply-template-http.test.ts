// llama-server's /apply-template over real sockets with a fake backend: the chat body checked as
// chat checks it, the turns and tools handed on exactly as a chat generation renders them, and
// add_generation_prompt honoured (not named as ignored).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatPromptParams, ChatPromptResult } from '../shared/worker-protocol.js';
import { startApiServer, type RunningApiServer } from './http-server.js';
import { FakeBackend } from './fake-backend.test-util.js';
import { IGNORED_HEADER } from './ignored-header.js';

/** A backend whose "template" writes each turn as `role: content` and says what it was given. */
class TemplatingBackend extends FakeBackend {
  rendered: ChatPromptParams[] = [];
  async applyTemplate(p: ChatPromptParams): Promise<ChatPromptResult> {
    this.rendered.push(p);
    const turns = p.messages.map((m) => `${m.role}: ${m.content}\n`).join('');
    const prompt = `${turns}${p.tools ? `[tools: ${p.tools.map((t) => t.name).join(',')}]` : ''}${p.addGenerationPrompt ? 'assistant:' : ''}`;
    // One token a character: the count routes' tests know what to expect.
    return { prompt, tokens: prompt.length };
  }
}

let backend: TemplatingBackend;
let srv: RunningApiServer;

beforeAll(async () => {
  backend = new TemplatingBackend();
  srv = await startApiServer({ backend, port: 0 });
});

afterAll(async () => {
  await srv.close();
});

const post = (body: unknown) => fetch(`http://127.0.0.1:${srv.port}/apply-template`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const messages = [
  { role: 'system', content: 'You are a test.' },
  { role: 'user', content: 'Hi there' },
];
const TOOL = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } };

describe('POST /apply-template', () => {
  it('answers the prompt the chat template makes of the turns, with the opening of the answer by default', async () => {
    const res = await post({ messages });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ prompt: 'system: You are a test.\nuser: Hi there\nassistant:' });
    expect(backend.rendered.at(-1)).toEqual({ messages, addGenerationPrompt: true });
  });

  it('leaves out the opening of the answer with add_generation_prompt false, and does not call that field ignored', async () => {
    const res = await post({ messages, add_generation_prompt: false });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { prompt: string }).prompt).toBe('system: You are a test.\nuser: Hi there\n');
    expect(res.headers.get(IGNORED_HEADER)).toBeNull();
  });

  it('renders tools as chat does: declared tools are rendered, none (or tool_choice none) renders none', async () => {
    expect(((await (await post({ messages, tools: [TOOL] })).json()) as { prompt: string }).prompt).toContain('[tools: get_weather]');
    await post({ messages, tools: [] });
    expect(backend.rendered.at(-1)?.tools).toBeUndefined();
    await post({ messages, tools: [TOOL], tool_choice: 'none' });
    expect(backend.rendered.at(-1)?.tools).toBeUndefined();
  });

  it('refuses what chat refuses: malformed turns and a non-boolean add_generation_prompt are 400s', async () => {
    const before = backend.rendered.length;
    expect((await post({ messages: [{ role: 'wizard', content: 'x' }] })).status).toBe(400);
    expect((await post({ messages: [] })).status).toBe(400);
    expect((await post({ messages, add_generation_prompt: 'yes' })).status).toBe(400);
    expect(backend.rendered.length).toBe(before);
  });

  it('names fields it does not read in the ignored header', async () => {
    const res = await post({ messages, chat_template_kwargs: { enable_thinking: false } });
    expect(res.status).toBe(200);
    expect(res.headers.get(IGNORED_HEADER)).toContain('chat_template_kwargs');
  });
});
