import { describe, expect, it } from 'vitest';
import { chooseMode, completionText, lacksTemplate } from './chat-mode.js';

const base = { name: 'tiny-base', chatTemplate: null };
const chat = { name: 'tiny-chat', chatTemplate: '{{ messages }}' };

describe('chooseMode', () => {
  it('a new conversation follows the model: completion without a chat template, with the reason', () => {
    const c = chooseMode({}, base);
    expect(c).toMatchObject({ mode: 'completion', auto: true, warning: null });
    expect(c.reason).toMatch(/automatically.*no chat template/);
    expect(chooseMode({}, chat)).toEqual({ mode: 'chat', auto: true, reason: null, warning: null });
    // No model loaded (or one whose template is unknown): chat, as before.
    expect(chooseMode({}, null).mode).toBe('chat');
    expect(chooseMode({}, { name: 'x' } as never).mode).toBe('chat');
  });

  it('a conversation keeps the mode it remembers, whatever model is loaded', () => {
    expect(chooseMode({ mode: 'completion', modeAuto: true }, chat)).toMatchObject({ mode: 'completion', auto: true });
    expect(chooseMode({ mode: 'completion', modeAuto: false }, base)).toMatchObject({ mode: 'completion', auto: false, reason: null });
    expect(chooseMode({ mode: 'chat', modeAuto: false }, chat)).toMatchObject({ mode: 'chat', warning: null });
  });

  it('warns when chat is chosen for a model without a chat template', () => {
    expect(chooseMode({ mode: 'chat', modeAuto: false }, base).warning).toMatch(/tiny-base has no chat template.*completion/);
  });

  it('lacksTemplate is true only for a model known to have none', () => {
    expect([lacksTemplate(base), lacksTemplate(chat), lacksTemplate(null), lacksTemplate(undefined)]).toEqual([true, false, false, false]);
  });
});

describe('completionText', () => {
  it('joins prompts and continuations as written, no separators added', () => {
    expect(completionText({ messages: [{ role: 'user', content: 'Once upon' }, { role: 'assistant', content: ' a time' }, { role: 'user', content: '\nThe end' }] })).toBe('Once upon a time\nThe end');
    expect(completionText({ messages: [] })).toBe('');
  });
});
