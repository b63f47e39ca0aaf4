import { useStore } from '../store/index.js';

export function ConversationsSection() {
  const conversations = useStore((s) => s.conversations);
  const currentId = useStore((s) => s.current.id);
  const select = useStore((s) => s.selectConversation);
  const create = useStore((s) => s.newConversation);
  const setTab = useStore((s) => s.setTab);
  return (
    <div className="section">
      <h3>
        Conversations<span className="spacer" />
        <button className="btn small" data-testid="new-conversation" onClick={() => { create(); setTab('chat'); }}>
          New
        </button>
      </h3>
      <ul className="list" data-testid="conversation-list">
        {conversations.length === 0 && <li className="faint">None saved yet.</li>}
        {conversations.map((c) => (
          <li key={c.id}>
            <button className={`list-item${c.id === currentId ? ' active' : ''}`} data-testid="conversation-item" onClick={() => { select(c.id); setTab('chat'); }}>
              <span className="title">{c.title}</span>
              <span className="meta">
                {c.messages.length} messages · {new Date(c.updatedAt).toLocaleString()}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
