// Run settings (the plan updates as they change) and the Load button with its progress bar.
import type { RunSettings } from '../../src-main/shared/api.js';
import { LIMITS } from '../../src-main/shared/settings/run-settings.js';
import { POLICIES as POLICY_NAMES } from '../../src-main/shared/worker-protocol.js';
import { useStore } from '../store/index.js';
import { IntField } from './IntField.js';
import { DraftSettings } from './DraftSettings.js';
import { RpcSettings } from './RpcSettings.js';
import { RoutingSettings } from './RoutingSettings.js';
import { LossySettings } from './LossySettings.js';
import { GpuSettings } from './GpuSettings.js';

const POLICIES: RunSettings['policy'][] = ['auto', ...POLICY_NAMES];

const hint = (v: number | null | undefined): string | null => (v === null || v === undefined ? null : String(v));

export function SettingsPanel() {
  const settings = useStore((s) => s.settings);
  const ramText = useStore((s) => s.ramText);
  const vramText = useStore((s) => s.vramText);
  const settingsError = useStore((s) => s.settingsError);
  const setSettings = useStore((s) => s.setSettings);
  const setSizeText = useStore((s) => s.setSizeText);
  // What "auto" comes to for these settings: the shape the current plan was made for.
  const shape = useStore((s) => s.plan?.shape ?? null);
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
          <input type="text" data-testid="setting-vram" placeholder="auto (the GPU's free memory less a margin)" value={vramText} onChange={(e) => setSizeText('vram', e.currentTarget.value)} />
        </label>
        <GpuSettings />
        <IntField label="Context" testId="setting-ctx" {...LIMITS.ctx} auto autoHint={hint(shape?.ctx)} value={settings.ctx} onChange={(ctx) => setSettings({ ctx })} title="Empty: the largest context that leaves the cap room for weights" />
        <IntField label="Micro-batch" testId="setting-batch" {...LIMITS.batch} auto autoHint={hint(shape?.batch)} value={settings.batch} onChange={(batch) => setSettings({ batch })} title="Empty: sized to the budget" />
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
        <IntField label="Prefetch depth" testId="setting-prefetch" {...LIMITS.prefetchDepth} auto={false} value={settings.prefetchDepth} onChange={(d) => d !== null && setSettings({ prefetchDepth: d })} title="Streamed units read ahead of the one in use, at most (fewer where one layer streams fewer)" />
        <IntField label="Threads" testId="setting-threads" {...LIMITS.threads} auto autoHint={hint(shape?.threads)} value={settings.threads} onChange={(threads) => setSettings({ threads })} title="Empty: the machine's physical cores" />
        <div className="checks">
          {check('enforceRam', 'enforce cap', 'setting-enforce', 'Run the worker in a memory cgroup capped at the RAM budget')}
          {check('mmap', 'mmap', 'setting-mmap', 'Memory-map the model file')}
        </div>
        {triState('repack', 'Repack', 'setting-repack', 'Let ggml repack weights into CPU-friendly layouts (auto: on unless weights stream)')}
        {triState('prefault', 'Prefault', 'setting-prefault', 'Prefault the whole mapping at load (auto: only when the model fits)')}
        <DraftSettings />
        <RpcSettings />
        <RoutingSettings />
        <LossySettings />
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
          <button className="btn" data-testid="unload-model" disabled={busy} onClick={() => void unloadModel()}>
            Unload
          </button>
        )}
      </div>
      {loading && (
        <div className="progress" data-testid="load-progress" data-fraction={(fraction ?? 0).toFixed(3)} title={`${Math.round((fraction ?? 0) * 100)}%`}>
          <div style={{ width: `${Math.round((fraction ?? 0) * 100)}%` }} />
        </div>
      )}
      {engineError && (
        <div className="err-text" data-testid="load-error">
          {engineError}
        </div>
      )}
    </div>
  );
}
