// The bounded renderer of untrusted chat templates: a template that loops for ever, loops
// without printing, or builds a huge value ends with a ChatTemplateError at its bound (steps,
// time, heap), and an ordinary template renders exactly the text the interpreter gives it
// directly, also right after a hostile one. Runs the bundled renderer (out/cli), as the worker does.
import { describe, expect, it } from 'vitest';
import { TOOLS_CHATML_TEMPLATE } from '../synth/chat-templates.js';
import type { ChatMessage } from '../shared/worker-protocol.js';
import { ChatTemplateError, TEMPLATE_RENDER_LIMITS, renderToolChat } from './tool-template.js';
import { renderToolChatBounded } from './template-render.js';

const NO_TOKENS = { bos: '', eos: '' };
const messages: ChatMessage[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Weather in Oslo?' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] },
  { role: 'tool', content: 'sunny', toolCallId: 'c1' },
];
const tools = [{ name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
const job = (template: string) => ({ template, messages, tools, tokens: NO_TOKENS });

async function failure(p: Promise<string>): Promise<ChatTemplateError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ChatTemplateError);
  return e as ChatTemplateError;
}

describe('renderToolChatBounded', () => {
  it('ends a hundred-million-turn loop with a ChatTemplateError, and renders an ordinary template right after', async () => {
    const e = await failure(renderToolChatBounded(job('{% for i in range(100000000) %}x{% endfor %}')));
    expect(e.message).toMatch(/steps|longer than|MiB/);
    expect(await renderToolChatBounded(job(TOOLS_CHATML_TEMPLATE))).toBe(renderToolChat(TOOLS_CHATML_TEMPLATE, messages, tools, NO_TOKENS));
  });

  it('ends nested loops that print nothing at the step budget', async () => {
    // The deadline out of the way: on a busy machine it could come first.
    const limits = { ...TEMPLATE_RENDER_LIMITS, timeoutMs: 120_000 };
    const e = await failure(renderToolChatBounded(job('{% for i in range(3000) %}{% for j in range(3000) %}{% endfor %}{% endfor %}'), limits));
    expect(e.message).toContain(`more than ${TEMPLATE_RENDER_LIMITS.maxSteps} steps`);
  });

  it('ends a render that outlives the deadline, whatever its steps', async () => {
    const limits = { ...TEMPLATE_RENDER_LIMITS, maxSteps: Number.MAX_SAFE_INTEGER, timeoutMs: 300 };
    const e = await failure(renderToolChatBounded(job('{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}'), limits));
    expect(e.message).toContain('longer than 0.3 s');
  });

  it('ends a render that builds a value larger than its heap', async () => {
    const limits = { ...TEMPLATE_RENDER_LIMITS, maxSteps: Number.MAX_SAFE_INTEGER, timeoutMs: 60_000, heapMb: 64 };
    const e = await failure(renderToolChatBounded(job('{{ range(100000000) | length }}'), limits));
    expect(e.message).toContain('more than 64 MiB');
  });

  it('ends a template that doubles a list in a short loop at the step budget (each list made is charged its items)', async () => {
    const limits = { ...TEMPLATE_RENDER_LIMITS, timeoutMs: 120_000 };
    const doubling = '{% set ns = namespace(a=[1]) %}{% for i in range(40) %}{% set ns.a = ns.a + ns.a %}{% endfor %}{{ ns.a | length }}';
    const e = await failure(renderToolChatBounded(job(doubling), limits));
    expect(e.message).toContain(`more than ${TEMPLATE_RENDER_LIMITS.maxSteps} steps`);
  });

  it('keeps the errors of a broken template (they are the template\'s own, not the bound\'s)', async () => {
    const e = await failure(renderToolChatBounded(job('{{ raise_exception("no tools here") }}')));
    expect(e.message).toContain('no tools here');
  });
});
