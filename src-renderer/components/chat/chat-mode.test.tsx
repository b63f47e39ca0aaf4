// The chat mode toggle and completion mode's text, rendered to HTML (no DOM needed): what the
// user sees for a base model, a chat model, and chat chosen by hand for a base model.
import { describe, expect, it, vi } from 'vitest';
import { renderToStaticMarkup } from 'react-dom/server';
import { chooseMode } from '../../lib/chat-mode.js';
import { ChatModeToggleView } from './ChatModeToggle.js';
import { CompletionDocument } from './CompletionDocument.js';

const model = (chatTemplate: string | null) => ({ name: 'tiny-base', chatTemplate });
const toggle = (choice: ReturnType<typeof chooseMode>) => renderToStaticMarkup(<ChatModeToggleView choice={choice} onChange={vi.fn()} />);

describe('ChatModeToggle', () => {
  it('a model without a chat template: completion pressed, chosen automatically, and why', () => {
    const html = toggle(chooseMode({}, model(null)));
    expect(html).toContain('data-mode="completion"');
    expect(html).toContain('data-auto="true"');
    expect(html).toMatch(/data-testid="chat-mode-completion" aria-pressed="true"/);
    expect(html).toMatch(/data-testid="chat-mode-chat" aria-pressed="false"/);
    expect(html).toMatch(/data-testid="chat-mode-reason">chosen automatically: the model has no chat template/);
  });

  it('a chat model: chat pressed, no reason; chat chosen by hand for a base model warns', () => {
    let html = toggle(chooseMode({}, model('{{ x }}')));
    expect(html).toContain('data-mode="chat"');
    expect(html).not.toContain('chat-mode-reason');
    html = toggle(chooseMode({ mode: 'chat', modeAuto: false }, model(null)));
    expect(html).toContain('data-auto="false"');
    expect(html).toMatch(/data-testid="chat-mode-warning">tiny-base has no chat template/);
  });
});

describe('CompletionDocument', () => {
  it('shows the prompt and the continuation as distinct parts of one text, with the last stats', () => {
    const html = renderToStaticMarkup(
      <CompletionDocument
        messages={[
          { role: 'user', content: 'Once upon' },
          { role: 'assistant', content: ' a time', stats: { ttftMs: 12, decodeTokS: 4.5, tokens: 3 } },
        ]}
      />,
    );
    expect(html).toMatch(/<span class="seg prompt" data-testid="completion-prompt">Once upon<\/span><span class="seg continuation" data-testid="completion-continuation"[^>]*> a time<\/span>/);
    expect(html).toContain('4.50 tok/s');
    expect(html).toContain('3 tokens');
  });

  it('says what to do when there is no text yet', () => {
    expect(renderToStaticMarkup(<CompletionDocument messages={[]} ready />)).toContain('the model continues it');
  });
});
