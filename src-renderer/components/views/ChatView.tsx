// Chat with the loaded model: system prompt, streamed replies, stop, per-message stats. In
// completion mode (base models) the conversation is one running text the model continues.
import { useEffect, useRef, useState } from 'react';
import { chooseMode, completionText } from '../../lib/chat-mode.js';
import { formatMs, formatTokS } from '../../lib/format.js';
import { useStore } from '../../store/index.js';
import { ChatModeToggle } from '../chat/ChatModeToggle.js';
import { CompletionDocument } from '../chat/CompletionDocument.js';
import { Empty } from '../Empty.js';

/** The current conversation's mode, as the toggle shows it. */
function useMode() {
  const mode = useStore((s) => s.current.mode);
  const modeAuto = useStore((s) => s.current.modeAuto);
  const model = useStore((s) => s.engine.model);
  return chooseMode({ mode, modeAuto }, model).mode;
}

export function ChatView() {
  const messages = useStore((s) => s.current.messages);
  const system = useStore((s) => s.current.system);
  const streaming = useStore((s) => s.streaming);
  const chatError = useStore((s) => s.chatError);
  const status = useStore((s) => s.engine.status);
  const model = useStore((s) => s.engine.model?.name);
  const setSystem = useStore((s) => s.setSystem);
  const mode = useMode();
  const list = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = list.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [messages]);
  return (
    <div className="chat" data-testid="chat-view">
      <ChatModeToggle />
      {mode === 'chat' && (
        <label className="field system">
          <span>System prompt {model ? `· ${model}` : ''}</span>
          <textarea data-testid="chat-system" rows={2} placeholder="You are a helpful assistant." value={system} disabled={streaming !== null} onChange={(e) => setSystem(e.currentTarget.value)} />
        </label>
      )}
      <div className="messages" ref={list}>
        {mode === 'completion' && <CompletionDocument messages={messages} streamingIndex={streaming?.index ?? null} ready={status === 'ready'} />}
        {mode === 'chat' && messages.length === 0 && <Empty text={status === 'ready' ? 'Say something to the model.' : 'Load a model (left panel), then chat here.'} />}
        {mode === 'chat' && messages.map((m, i) =>
          m.role === 'user' ? (
            <div key={i} className="msg user" data-testid="user-message">
              <div className="who">you</div>
              <div className="body">{m.content}</div>
            </div>
          ) : m.role === 'assistant' ? (
            <div key={i} className="msg assistant" data-testid="assistant-message" data-streaming={String(streaming?.index === i)} data-interrupted={String(m.interrupted === true)}>
              <div className="who">assistant{m.interrupted && <span className="interrupted" data-testid="reply-interrupted" title="the reply was cut off; this is what was saved of it"> · interrupted</span>}</div>
              <div className="body">{m.content}</div>
              {m.stats && (
                <div className="stats" data-testid="message-stats">
                  <span>{formatTokS(m.stats.decodeTokS)}</span>
                  <span>TTFT {formatMs(m.stats.ttftMs)}</span>
                  <span>{m.stats.tokens} tokens</span>
                </div>
              )}
            </div>
          ) : null,
        )}
      </div>
      {chatError && <div className="err-text" data-testid="chat-error">{chatError}</div>}
      <Composer />
    </div>
  );
}

function Composer() {
  const [text, setText] = useState('');
  const streaming = useStore((s) => s.streaming !== null);
  const status = useStore((s) => s.engine.status);
  const maxTokens = useStore((s) => s.maxTokens);
  const setMaxTokens = useStore((s) => s.setMaxTokens);
  const send = useStore((s) => s.send);
  const stop = useStore((s) => s.stop);
  const mode = useMode();
  // Completion mode may continue the text as it stands, with nothing typed.
  const hasText = useStore((s) => completionText(s.current) !== '');
  const completion = mode === 'completion';
  const canSend = !streaming && status === 'ready' && (completion ? text !== '' || hasText : text.trim() !== '');
  const submit = () => {
    if (!canSend) return;
    void send(text);
    setText('');
  };
  return (
    <div className="composer">
      <textarea
        data-testid="chat-input"
        placeholder={
          status !== 'ready'
            ? 'Load a model to chat'
            : completion
              ? 'Text for the model to continue (Enter to generate, Shift+Enter for a new line; empty continues the text)'
              : 'Message (Enter to send, Shift+Enter for a new line)'
        }
        value={text}
        onChange={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey) {
            e.preventDefault();
            submit();
          }
        }}
      />
      <div className="side">
        <button className="btn primary" data-testid="chat-send" disabled={!canSend} onClick={submit}>
          {completion ? (text === '' && hasText ? 'Continue' : 'Generate') : 'Send'}
        </button>
        <button className="btn danger" data-testid="chat-stop" disabled={!streaming} onClick={() => void stop()}>
          Stop
        </button>
        <label className="field">
          <span>max tokens</span>
          <input type="number" min={1} max={32768} data-testid="chat-max-tokens" value={maxTokens} onChange={(e) => setMaxTokens(Number(e.currentTarget.value))} />
        </label>
      </div>
    </div>
  );
}
