// Known models (api.listModels) and the file picker for a GGUF or a report.
import { useRef } from 'react';
import { formatBytes } from '../lib/format.js';
import { useStore } from '../store/index.js';
import { openAnyFile } from '../store/open-file.js';

export function ModelsSection() {
  const models = useStore((s) => s.models);
  const modelPath = useStore((s) => s.modelPath);
  const openModel = useStore((s) => s.openModel);
  const input = useRef<HTMLInputElement>(null);
  return (
    <div className="section">
      <h3>
        Models<span className="spacer" />
        <button className="btn small" onClick={() => input.current?.click()}>
          Open file…
        </button>
      </h3>
      <input
        ref={input}
        className="hidden-input"
        type="file"
        accept=".gguf,.json"
        data-testid="file-input"
        onChange={(e) => {
          const f = e.currentTarget.files?.[0];
          e.currentTarget.value = '';
          if (f) void openAnyFile(f);
        }}
      />
      {models.length === 0 ? (
        <div className="faint">No models yet — drop a .gguf anywhere.</div>
      ) : (
        <ul className="list" data-testid="model-list">
          {models.map((m) => (
            <li key={m.path}>
              <button
                className={`list-item${m.path === modelPath ? ' active' : ''}`}
                data-testid="model-item"
                data-path={m.path}
                title={m.path}
                onClick={() => void openModel(m.path, m.name)}
              >
                <span className="title">{m.name}</span>
                <span className="meta">{formatBytes(m.sizeBytes)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
