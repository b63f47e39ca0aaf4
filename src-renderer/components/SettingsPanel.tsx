// Run settings (the plan updates as they change) and the Load button with its progress bar.
import type { RunSettings } from '../../src-main/shared/api.js';
import { POLICIES as POLICY_NAMES } from '../../src-main/shared/worker-protocol.js';
import { useStore } from '../store/index.js';

const POLICIES: RunSettings['policy'][] = ['auto', ...POLICY_NAMES];

function intOr(v: string, fallback: number): number {
  const n = Number.parseInt(v, 10);
  return Number.isFinite(n) ? n : fallback;
}

/** An empty field means "auto" (null): chosen to fit the budget when the model loads. */
function intOrAuto(v: string, min: number): number | null {
  if (v.trim() === '') return null;
  const n = Number.parseInt(v, 10);
  return Number.isFinite(n) ? Math.max(min, n) : null;
}

export function SettingsPanel() {
  const settings = useStore((s) => s.settings);
  const ramText = useStore((s) => s.ramText);
  const vramText = useStore((s) => s.vramText);
  const settingsError = useStore((s) => s.settingsError);
  const setSettings = useStore((s) => s.setSettings);
  const setSizeText = useStore((s) => s.setSizeText);
  const check = (key: 'enforceRam' | 'mmap', label: string, testId: string, title: string) => (
    <label className="check" title={title}>
      <input type="checkbox" data-testid={testId} checked={settings[key]} onChange={(e) => setSettings({ [key]: e.currentTarget.checked })} />
      {label}
    </label>
  );
  const triState = (key: 'repack' | 'prefault', label: string, testId: string, title: string) => (
    <label className="field" title={title}>
      <span>{label}</span>
      <select data-testid={testId} value={settings[key] === null ? 'auto' : settings[key] ? 'on' : 'off'} onChange={(e) => setSettings({ [key]: e.currentTarget.value === 'auto' ? null : e.currentTarget.value === 'on' })}>
        <option value="auto">auto</option>
        <option value="on">on</option>
        <option value="off">off</option>
      </select>
    </label>
  );
  return (
    <div className="section">
      <h3>Run settings</h3>
      <div className="form">
        <label className="field">
          <span>RAM budget</span>
          <input type="text" data-testid="setting-ram" placeholder="none (e.g. 2G)" value={ramText} onChange={(e) => setSizeText('ram', e.currentTarget.value)} />
        </label>
        <label className="field">
          <span>VRAM budget</span>
          <input type="text" data-testid="setting-vram" placeholder="none" value={vramText} onChange={(e) => setSizeText('vram', e.currentTarget.value)} />
        </label>
        <label className="field">
          <span>Context</span>
          <input type="number" min={16} step={256} data-testid="setting-ctx" placeholder="auto" value={settings.ctx ?? ''} onChange={(e) => setSettings({ ctx: intOrAuto(e.currentTarget.value, 16) })} />
        </label>
        <label className="field">
          <span>Micro-batch</span>
          <input type="number" min={1} max={8192} data-testid="setting-batch" placeholder="auto" value={settings.batch ?? ''} onChange={(e) => setSettings({ batch: intOrAuto(e.currentTarget.value, 1) })} />
        </label>
        <label className="field">
          <span>Policy</span>
          <select data-testid="setting-policy" value={settings.policy} onChange={(e) => setSettings({ policy: e.currentTarget.value as RunSettings['policy'] })}>
            {POLICIES.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Prefetch depth</span>
          <input type="number" min={0} max={16} data-testid="setting-prefetch" value={settings.prefetchDepth} onChange={(e) => setSettings({ prefetchDepth: Math.max(0, intOr(e.currentTarget.value, settings.prefetchDepth)) })} />
        </label>
        <label className="field">
          <span>Threads</span>
          <input type="number" min={1} max={512} data-testid="setting-threads" placeholder="auto (physical cores)" value={settings.threads ?? ''} onChange={(e) => setSettings({ threads: intOrAuto(e.currentTarget.value, 1) })} />
        </label>
        <div className="checks">
          {check('enforceRam', 'enforce cap', 'setting-enforce', 'Run the worker in a memory cgroup capped at the RAM budget')}
          {check('mmap', 'mmap', 'setting-mmap', 'Memory-map the model file')}
        </div>
        {triState('repack', 'Repack', 'setting-repack', 'Let ggml repack weights into CPU-friendly layouts (auto: on unless weights stream)')}
        {triState('prefault', 'Prefault', 'setting-prefault', 'Prefault the whole mapping at load (auto: only when the model fits)')}
        {settingsError && <div className="field wide err-text">{settingsError}</div>}
      </div>
      <LoadControls />
    </div>
  );
}

function LoadControls() {
  const modelPath = useStore((s) => s.modelPath);
  const badFile = useStore((s) => s.inspectError !== null);
  const status = useStore((s) => s.engine.status);
  const loaded = useStore((s) => s.engine.model?.path ?? null);
  const fraction = useStore((s) => s.loadFraction);
  const engineError = useStore((s) => s.engineError);
  const loadModel = useStore((s) => s.loadModel);
  const unloadModel = useStore((s) => s.unloadModel);
  const busy = status === 'loading' || status === 'generating';
  const loading = status === 'loading' || fraction !== null;
  return (
    <div className="stack">
      <div className="row">
        <button className="btn primary grow" data-testid="load-model" disabled={!modelPath || busy || badFile} onClick={() => modelPath && void loadModel(modelPath)} title={modelPath ?? 'open a model first'}>
          {loaded && loaded === modelPath ? 'Reload with these settings' : 'Load model'}
        </button>
        {loaded && (
          <button className="btn" disabled={busy} onClick={() => void unloadModel()}>
            Unload
          </button>
        )}
      </div>
      {loading && (
        <div className="progress" data-testid="load-progress" data-fraction={(fraction ?? 0).toFixed(3)} title={`${Math.round((fraction ?? 0) * 100)}%`}>
          <div style={{ width: `${Math.round((fraction ?? 0) * 100)}%` }} />
        </div>
      )}
      {engineError && <div className="err-text">{engineError}</div>}
    </div>
  );
}
