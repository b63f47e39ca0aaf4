// Completion mode's view of a conversation: one running text, the user's parts plain and the
// model's continuations marked, with the stats of the last continuation under it.
import type { Conversation } from '../../../src-main/shared/api.js';
import { formatMs, formatTokS } from '../../lib/format.js';
import { Empty } from '../Empty.js';
import './chat-mode.css';

export function CompletionDocument({ messages, streamingIndex = null, ready = false }: { messages: Conversation['messages']; streamingIndex?: number | null; ready?: boolean }) {
  if (messages.length === 0) return <Empty text={ready ? 'Type the beginning of a text; the model continues it.' : 'Load a model (left panel), then write text for it to continue.'} />;
  const last = [...messages].reverse().find((m) => m.role === 'assistant' && m.stats);
  return (
    <div className="completion-doc" data-testid="completion-doc">
      <div className="completion-text">
        {messages.map((m, i) =>
          m.role === 'assistant' ? (
            <span key={i} className="seg continuation" data-testid="completion-continuation" data-streaming={String(streamingIndex === i)} title="generated">
              {m.content}
            </span>
          ) : (
            <span key={i} className="seg prompt" data-testid="completion-prompt">
              {m.content}
            </span>
          ),
        )}
      </div>
      {last?.stats && (
        <div className="stats" data-testid="message-stats">
          <span>{formatTokS(last.stats.decodeTokS)}</span>
          <span>TTFT {formatMs(last.stats.ttftMs)}</span>
          <span>{last.stats.tokens} tokens</span>
        </div>
      )}
    </div>
  );
}
