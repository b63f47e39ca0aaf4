// Models already on this machine (Ollama, LM Studio, Hugging Face, llama.cpp, added folders),
// grouped by where they were found, each with its verdict for the current RAM budget; files that
// are not chat models are labelled and cannot be opened for chat; unreadable ones say why.
// A pasted model URL opens in the inspect view with its plan, before anything is downloaded.
import { useEffect, useState } from 'react';
import { formatBytes, formatTokS } from '../lib/format.js';
import type { DiscoveredEntry } from '../lib/discovery-model.js';
import { useStore } from '../store/index.js';
import { UrlPull } from './UrlPull.js';
import './DiscoveredModels.css';

function verdictClass(v: string | null): string {
  if (v === 'fits') return 'badge ok';
  if (v === 'cannot-run') return 'badge bad';
  return v ? 'badge warn' : 'badge';
}

function Status({ e }: { e: DiscoveredEntry }) {
  if (e.kind === 'unreadable') return <span className="badge bad">unreadable</span>;
  if (!e.chat) return <span className="badge">{e.kind}</span>;
  if (!e.verdict) return e.planError ? <span className="badge">no plan</span> : null;
  return (
    <span className={verdictClass(e.verdict)} data-testid="discovered-verdict">
      {e.verdict}
      {e.verdict === 'out-of-core' && e.tokS !== null ? ` · ${formatTokS(e.tokS)}` : ''}
    </span>
  );
}

function Entry({ e, active, onOpen }: { e: DiscoveredEntry; active: boolean; onOpen: () => void }) {
  const why = e.reason ?? e.verdictText ?? e.planError ?? '';
  return (
    <li>
      <button
        className={`list-item${active ? ' active' : ''}`}
        data-testid="discovered-item"
        data-source={e.source}
        data-kind={e.kind}
        data-verdict={e.verdict ?? ''}
        data-path={e.path}
        disabled={!e.chat}
        title={`${e.path}${why ? `\n${why}` : ''}`}
        onClick={onOpen}
      >
        <span className="title">{e.name}</span>
        <span className="meta">
          {[e.architecture, e.quantization, e.fileBytes === null ? null : formatBytes(e.fileBytes)].filter(Boolean).join(' · ')}
          <Status e={e} />
        </span>
        {e.kind === 'unreadable' && e.reason && <span className="meta err-text discovery-reason">{e.reason}</span>}
      </button>
    </li>
  );
}

export function DiscoveredModels() {
  const info = useStore((s) => s.discovered);
  const discovering = useStore((s) => s.discovering);
  const error = useStore((s) => s.discoveryError);
  const budget = useStore((s) => s.settings.ramBytes);
  const modelPath = useStore((s) => s.modelPath);
  const openModel = useStore((s) => s.openModel);
  const refresh = useStore((s) => s.refreshDiscovered);
  const schedule = useStore((s) => s.scheduleDiscovery);
  const openModelUrl = useStore((s) => s.openModelUrl);
  const setFolders = useStore((s) => s.setModelFolders);
  const [url, setUrl] = useState('');
  const [folder, setFolder] = useState('');
  // The first list, and a new one whenever the budget the verdicts are for changes.
  useEffect(() => schedule(), [budget, schedule]);
  const planUrl = () => {
    if (url.trim()) void openModelUrl(url);
  };
  const addFolder = () => {
    const f = folder.trim();
    if (!f || !info) return;
    setFolder('');
    void setFolders([...info.folders.filter((x) => x !== f), f]);
  };
  return (
    <div className="section" data-testid="discovered-models">
      <h3>
        On this machine
        {discovering && <span className="faint">searching…</span>}
        <span className="spacer" />
        <button className="btn small" data-testid="discovery-refresh" onClick={() => void refresh()}>
          Refresh
        </button>
      </h3>
      <div className="discovery-row">
        <input
          type="text"
          data-testid="model-url-input"
          placeholder="Paste a model URL (https://…/model.gguf)"
          value={url}
          onChange={(e) => setUrl(e.currentTarget.value)}
          onKeyDown={(e) => e.key === 'Enter' && planUrl()}
        />
        <button className="btn small" data-testid="model-url-plan" disabled={!url.trim()} onClick={planUrl}>
          Plan
        </button>
      </div>
      <UrlPull />
      {error && (
        <div className="err-text" data-testid="discovery-error">
          {error}
        </div>
      )}
      {info && info.groups.length === 0 && <div className="faint">No GGUF models found in Ollama, LM Studio, the Hugging Face or llama.cpp caches.</div>}
      <div className="discovery-groups">
        {info?.groups.map((g) => (
          <div key={g.source} className="discovery-group" data-testid="discovery-group" data-source={g.source}>
            <div className="discovery-source" title={g.roots.join('\n')}>
              {g.label}
            </div>
            <ul className="list">
              {g.entries.map((e) => (
                <Entry key={`${e.path}\n${e.name}`} e={e} active={e.path === modelPath} onOpen={() => void openModel(e.path, e.name)} />
              ))}
            </ul>
          </div>
        ))}
      </div>
      <div className="discovery-row folder">
        <input
          type="text"
          data-testid="model-folder-input"
          placeholder="Add a folder to search (absolute path)"
          value={folder}
          onChange={(e) => setFolder(e.currentTarget.value)}
          onKeyDown={(e) => e.key === 'Enter' && addFolder()}
        />
        <button className="btn small" data-testid="model-folder-add" disabled={!folder.trim() || !info} onClick={addFolder}>
          Add
        </button>
      </div>
      {info && info.folders.length > 0 && (
        <ul className="discovery-folders">
          {info.folders.map((f) => (
            <li key={f}>
              <span title={f}>{f}</span>
              <button className="btn link" onClick={() => void setFolders(info.folders.filter((x) => x !== f))}>
                remove
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
