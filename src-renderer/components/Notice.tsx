import { useStore } from '../store/index.js';

export function Notice() {
  const notice = useStore((s) => s.notice);
  const clear = useStore((s) => s.clearNotice);
  if (!notice) return null;
  return (
    <div className={`notice ${notice.kind}`} role="status" data-testid="notice">
      <span className="grow">{notice.text}</span>
      <button className="btn small" onClick={clear}>
        ✕
      </button>
    </div>
  );
}
