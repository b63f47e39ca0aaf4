// Chat or completion for the current conversation: two buttons, and under them why the mode
// was chosen automatically (a model without a chat template) or why chat cannot work.
import type { ChatMode } from '../../../src-main/shared/api.js';
import { chooseMode, type ModeChoice } from '../../lib/chat-mode.js';
import { useStore } from '../../store/index.js';
import './chat-mode.css';

const LABELS: Record<ChatMode, string> = { chat: 'Chat', completion: 'Completion' };
const TITLES: Record<ChatMode, string> = {
  chat: 'Turns rendered with the model’s chat template',
  completion: 'Raw text continuation, no template (base models)',
};

export function ChatModeToggle() {
  const mode = useStore((s) => s.current.mode);
  const modeAuto = useStore((s) => s.current.modeAuto);
  const model = useStore((s) => s.engine.model);
  const streaming = useStore((s) => s.streaming !== null);
  const setMode = useStore((s) => s.setMode);
  return <ChatModeToggleView choice={chooseMode({ mode, modeAuto }, model)} disabled={streaming} onChange={setMode} />;
}

export function ChatModeToggleView({ choice, disabled = false, onChange }: { choice: ModeChoice; disabled?: boolean; onChange: (m: ChatMode) => void }) {
  return (
    <div className="chat-mode" data-testid="chat-mode" data-mode={choice.mode} data-auto={String(choice.auto)}>
      <div className="segmented" role="group" aria-label="Conversation mode">
        {(['chat', 'completion'] as const).map((m) => (
          <button
            key={m}
            className="btn small"
            data-testid={`chat-mode-${m}`}
            aria-pressed={choice.mode === m}
            title={TITLES[m]}
            disabled={disabled}
            onClick={() => onChange(m)}
          >
            {LABELS[m]}
          </button>
        ))}
      </div>
      {choice.reason && (
        <span className="chat-mode-note" data-testid="chat-mode-reason">
          {choice.reason}
        </span>
      )}
      {choice.warning && (
        <span className="chat-mode-note warn" data-testid="chat-mode-warning">
          {choice.warning}
        </span>
      )}
    </div>
  );
}
