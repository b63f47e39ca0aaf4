// The load settings' routing fields of a mixture of experts: a routing trace (`# route_trace v1`
// CSV, e.g. a published one or one the app wrote) replayed in place of the routers' choices, and
// a file the run's routing is written to. Typed paths, committed on Enter or leaving the field.
import { useState } from 'react';
import { CommitField } from './CommitField.js';
import type { RunSettings } from '../../src-main/shared/api.js';
import { ROUTING_LABEL, routingPathPatch, type RoutingField } from '../lib/routing-settings.js';
import { useStore } from '../store/index.js';

export function RoutingSettings() {
  const settings = useStore((s) => s.settings);
  const setSettings = useStore((s) => s.setSettings);
  return <RoutingFields settings={settings} onChange={setSettings} />;
}

interface Props {
  settings: Pick<RunSettings, RoutingField>;
  onChange(patch: Partial<RunSettings>): void;
}

const TITLE: Record<RoutingField, string> = {
  routingTrace: "A mixture of experts: replay this routing trace in place of the routers' choices (a model with the same MoE layers, experts and experts per token). Empty: the model's own routing.",
  routingTraceOut: 'A mixture of experts: write the routing (per token and MoE layer, the experts chosen and their weights) to this CSV file. Empty: not written.',
};

const PLACEHOLDER: Record<RoutingField, string> = { routingTrace: 'none (full path to a .route.csv)', routingTraceOut: 'none (full path of a .csv to write)' };

const TEST_ID: Record<RoutingField, string> = { routingTrace: 'setting-routing-trace', routingTraceOut: 'setting-routing-out' };

export function RoutingFields({ settings, onChange }: Props) {
  const [error, setError] = useState<string | null>(null);
  const commit = (field: RoutingField, text: string) => {
    const r = routingPathPatch(settings, field, text);
    setError(r.ok ? null : r.error);
    if (r.ok && r.patch[field] !== settings[field]) onChange(r.patch);
  };
  return (
    <>
      <PathField field="routingTrace" value={settings.routingTrace} commit={commit} />
      <PathField field="routingTraceOut" value={settings.routingTraceOut} commit={commit} />
      {error && (
        <div className="field wide err-text" data-testid="setting-routing-error">
          {error}
        </div>
      )}
    </>
  );
}

function PathField({ field, value, commit }: { field: RoutingField; value: string | null; commit(field: RoutingField, text: string): void }) {
  return <CommitField wide label={ROUTING_LABEL[field]} title={TITLE[field]} testId={TEST_ID[field]} placeholder={PLACEHOLDER[field]} value={value ?? ''} commit={(t) => commit(field, t)} />;
}
