// Shown when the worker died: what happened, and a way to start again. The UI stays usable.
import { useStore } from '../store/index.js';

export function CrashBanner() {
  const status = useStore((s) => s.engine.status);
  const message = useStore((s) => s.engine.message);
  const lastExit = useStore((s) => s.engine.lastExit);
  const restart = useStore((s) => s.restart);
  if (status !== 'crashed') return null;
  const how = lastExit ? `${lastExit.reason}${lastExit.signal ? ` (${lastExit.signal})` : lastExit.code !== null ? ` (exit ${lastExit.code})` : ''}` : 'unknown';
  return (
    <div className="banner" data-testid="worker-crashed-banner" role="alert">
      <div className="grow">
        <div className="what">The inference worker stopped: {how}</div>
        <div data-testid="engine-message">{message ?? lastExit?.message ?? 'no reason was reported'}</div>
      </div>
      <button className="btn primary" data-testid="new-run" onClick={() => void restart()}>
        Start again
      </button>
    </div>
  );
}
