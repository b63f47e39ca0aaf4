// The engine's status pill (always visible), its message and the force-stop button.
import { useStore } from '../store/index.js';

export function EngineStatus() {
  const status = useStore((s) => s.engine.status);
  const message = useStore((s) => s.engine.message);
  const model = useStore((s) => s.engine.model?.name);
  const killWorker = useStore((s) => s.killWorker);
  const busy = status === 'loading' || status === 'generating' || status === 'ready';
  return (
    <>
      {model && <span className="dim mono">{model}</span>}
      <span className="pill" data-testid="engine-status" data-status={status}>
        {status}
      </span>
      {message && status !== 'crashed' && (
        <span className="dim" data-testid="engine-message">
          {message}
        </span>
      )}
      <button className="btn small danger" data-testid="kill-worker" disabled={!busy} onClick={() => void killWorker()} title="Kill the inference worker (force stop)">
        Force stop
      </button>
    </>
  );
}
