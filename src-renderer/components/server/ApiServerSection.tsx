// Sidebar setting for the OpenAI-compatible API: on/off, port, optional key. The key is
// write-only: the host only says whether one is set.
import { useEffect, useState } from 'react';
import { DEFAULT_API_PORT } from '../../../src-main/shared/api-server-state.js';
import { apiServerRequest } from '../../lib/server-model.js';
import { apiDefaultsText } from '../../../src-main/shared/api-defaults.js';
import { useStore } from '../../store/index.js';
import './server.css';

export function ApiServerSection() {
  const state = useStore((s) => s.apiServer);
  const busy = useStore((s) => s.apiServerBusy);
  const callError = useStore((s) => s.apiServerError);
  const apply = useStore((s) => s.applyApiServer);
  const [portText, setPortText] = useState(String(DEFAULT_API_PORT));
  const [keyText, setKeyText] = useState('');
  const [corsText, setCorsText] = useState('');
  const [formError, setFormError] = useState<string | null>(null);
  // What the user asked for while the host is still applying it (the box follows the click).
  const [asked, setAsked] = useState<boolean | null>(null);
  // The host's port is the form's starting point (and after every change it answers).
  useEffect(() => {
    if (state) setPortText(String(state.port));
  }, [state?.port]);
  const corsNow = (state?.cors ?? []).join(', ');
  useEffect(() => setCorsText(corsNow), [corsNow]);
  const [defaultsText, setDefaultsText] = useState('');
  const defaultsNow = apiDefaultsText(state?.defaults ?? {});
  useEffect(() => setDefaultsText(defaultsNow), [defaultsNow]);
  const [aliasText, setAliasText] = useState('');
  const [tagsText, setTagsText] = useState('');
  const aliasNow = (state?.names.aliases ?? []).join(', ');
  const tagsNow = (state?.names.tags ?? []).join(', ');
  useEffect(() => setAliasText(aliasNow), [aliasNow]);
  useEffect(() => setTagsText(tagsNow), [tagsNow]);
  const [slots, setSlots] = useState(true);
  useEffect(() => setSlots(state?.slots ?? true), [state?.slots]);
  const [perToken, setPerToken] = useState(false);
  useEffect(() => setPerToken(state?.pooling === 'none'), [state?.pooling]);
  const submit = (enabled: boolean, clearKey = false) => {
    const r = apiServerRequest({ enabled, portText, keyText, clearKey, corsText, defaultsText, aliasText, tagsText, slots, perToken });
    if ('error' in r) return setFormError(r.error);
    setFormError(null);
    setKeyText('');
    setAsked(enabled);
    void apply(r.ok).finally(() => setAsked(null));
  };
  const enabled = state?.enabled ?? false;
  const error = formError ?? callError ?? (enabled ? state?.error : null) ?? null;
  return (
    <div className="section" data-testid="api-server-section">
      <h3>OpenAI-compatible API</h3>
      <div className="form">
        <div className="checks">
          <label className="check" title="Serve /v1/chat/completions, /v1/completions and /v1/models on 127.0.0.1 for editors, agents and scripts">
            <input type="checkbox" data-testid="api-enabled" checked={asked ?? enabled} disabled={busy || state === null} onChange={(e) => submit(e.currentTarget.checked)} />
            Serve the loaded model
          </label>
        </div>
        <TextSetting label="Port" testId="api-port" numeric value={portText} disabled={busy} onChange={setPortText} />
        <label className="field">
          <span>API key</span>
          <input type="password" autoComplete="off" data-testid="api-key" placeholder={state?.hasKey ? 'set (type to replace)' : 'none'} value={keyText} disabled={busy} onChange={(e) => setKeyText(e.currentTarget.value)} />
        </label>
        <TextSetting label="CORS origins" title="Let web pages of these origins call the API from a browser (a chat front-end on another port or site), as serve --cors does: https://host[:port], comma-separated, or * for any (never with credentials). Empty: no page of another origin." testId="api-cors" placeholder="none (e.g. http://localhost:3000)" value={corsText} disabled={busy} onChange={setCorsText} />
        <TextSetting label="Sampling defaults" title="Sampling for requests that do not set it, as serve --temp, --seed, --top-k, --top-p, --min-p, --repeat-penalty and --n-predict give it (llama-server's server-wide defaults): name=value, comma-separated, e.g. temperature=0.2, seed=42, max-tokens=256. Empty: each API's own (OpenAI's temperature 1, Ollama's 0.8)." testId="api-defaults" placeholder="each API's own (e.g. temperature=0.2, seed=42)" value={defaultsText} disabled={busy} onChange={setDefaultsText} />
        <TextSetting label="Model names" title="Names clients may give as the model (serve --alias, llama-server's --alias): /v1/models lists the first in sorted order; comma-separated. Empty: the file's name." testId="api-alias" placeholder="the file's name" value={aliasText} disabled={busy} onChange={setAliasText} />
        <TextSetting label="Tags" title="Labels /v1/models lists beside the model (serve --tags); comma-separated. Nothing is chosen by them." testId="api-tags" placeholder="none" value={tagsText} disabled={busy} onChange={setTagsText} />
        <label className="check" title="Answer llama-server's GET /slots (serve --slots, on by default): each slot's context and whether a request runs in it; no prompts or answers are shown. Off: 501, as serve --no-slots.">
          <input type="checkbox" data-testid="api-slots" checked={slots} disabled={busy} onChange={(e) => setSlots(e.currentTarget.checked)} />
          Answer GET /slots
        </label>
        <label className="check" title="Embeddings without pooling (serve --pooling none, llama-server's --pooling none): POST /embeddings gives a vector per token of each text instead of their mean; OpenAI's /v1/embeddings and Ollama's embedding routes then answer 400, as their shapes hold one vector per text.">
          <input type="checkbox" data-testid="api-pooling-none" checked={perToken} disabled={busy} onChange={(e) => setPerToken(e.currentTarget.checked)} />
          Embeddings: a vector per token
        </label>
        <div className="row wrap api-actions">
          <button className="btn small" data-testid="api-apply" disabled={busy || state === null} onClick={() => submit(enabled)}>
            Apply
          </button>
          {state?.hasKey && (
            <button className="btn small" data-testid="api-clear-key" disabled={busy} onClick={() => submit(enabled, true)}>
              Remove key
            </button>
          )}
        </div>
      </div>
      <div className="faint" data-testid="api-url">
        {enabled && state?.url ? `${state.url}${state.hasKey ? ' · Bearer key required' : ''}` : 'off'}
      </div>
      {error && (
        <div className="err-text" data-testid="api-error">
          {error}
        </div>
      )}
    </div>
  );
}

/** One text setting of the section: a label, its help on hover, the field. */
function TextSetting(p: { label: string; title?: string; testId: string; placeholder?: string; value: string; disabled: boolean; onChange: (v: string) => void; numeric?: boolean }) {
  return (
    <label className="field" title={p.title}>
      <span>{p.label}</span>
      <input type="text" inputMode={p.numeric ? 'numeric' : undefined} data-testid={p.testId} placeholder={p.placeholder} value={p.value} disabled={p.disabled} onChange={(e) => p.onChange(e.currentTarget.value)} />
    </label>
  );
}
