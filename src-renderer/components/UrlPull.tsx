// Under the URL box: download the model the inspect view shows from a URL, with its progress
// (rate and time left), a stop button (the next download resumes), and the result.
import { formatBytes } from '../lib/format.js';
import { formatDuration } from '../../src-main/shared/remote/progress-line.js';
import { isModelUrl } from '../../src-main/shared/remote/model-url.js';
import { useStore } from '../store/index.js';

export function UrlPull() {
  const url = useStore((s) => s.modelPath);
  const pull = useStore((s) => (s.modelPath ? s.pulls[s.modelPath] : undefined));
  const inspected = useStore((s) => s.inspection !== null);
  const pullModel = useStore((s) => s.pullModel);
  const cancelPull = useStore((s) => s.cancelPull);
  const openModel = useStore((s) => s.openModel);
  if (!url || !isModelUrl(url) || !inspected) return null;
  const running = pull?.state === 'running';
  const frac = pull?.total ? Math.min(1, pull.done / pull.total) : 0;
  const eta = pull?.rate && pull.total ? formatDuration((pull.total - pull.done) / pull.rate) : '—';
  return (
    <div className="url-pull" data-testid="url-pull" data-state={pull?.state ?? 'idle'}>
      {running ? (
        <>
          <div className="progress">
            <div style={{ width: `${Math.round(frac * 100)}%` }} />
          </div>
          <div className="meta" data-testid="url-pull-progress">
            {pull.file ?? 'starting'} · {formatBytes(pull.done)}
            {pull.total ? ` / ${formatBytes(pull.total)}` : ''}
            {pull.rate ? ` · ${formatBytes(pull.rate)}/s · ${eta} left` : ''}
          </div>
          <button className="btn small" data-testid="url-pull-cancel" onClick={() => void cancelPull(url)}>
            Stop
          </button>
        </>
      ) : pull?.state === 'done' ? null : (
        <button className="btn small" data-testid="url-pull-start" onClick={() => void pullModel(url)} title="Download into RAMforge's models folder (resumable, sha256-verified when the server publishes one)">
          {pull?.state === 'failed' ? 'Download again (resumes)' : 'Download this model'}
        </button>
      )}
      {pull?.message && !running && (
        <div className={pull.state === 'failed' ? 'err-text' : 'meta'} data-testid="url-pull-result">
          {pull.message}
          {pull.path && (
            <button className="btn link url-pull-open" data-testid="url-pull-open" onClick={() => void openModel(pull.path as string)}>
              open
            </button>
          )}
        </div>
      )}
    </div>
  );
}
