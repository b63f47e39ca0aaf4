// The load settings' routing fields (a mixture of experts): a routing trace to replay in place of
// the routers' choices, and a file to write the run's routing to. Both are paths on the machine
// the app runs on, given in full (the host's working folder is not the user's). Pure; the load's
// preparation checks them again against the model (its shape, its experts, the folder).
import type { RunSettings } from '../../src-main/shared/settings/run-settings.js';

export type RoutingField = 'routingTrace' | 'routingTraceOut';

export const ROUTING_LABEL: Record<RoutingField, string> = { routingTrace: 'Routing trace', routingTraceOut: 'Write routing to' };

export type RoutingPatch = { ok: true; patch: Partial<Pick<RunSettings, RoutingField>> } | { ok: false; error: string };

/** A full path: POSIX, a Windows drive or a UNC share. */
const FULL_PATH = /^(\/|[A-Za-z]:[\\/]|\\\\)/;

/** What committing `text` in one routing field changes, or why it cannot (empty is none). */
export function routingPathPatch(s: Pick<RunSettings, RoutingField>, field: RoutingField, text: string): RoutingPatch {
  const t = text.trim();
  if (t === '') return { ok: true, patch: { [field]: null } };
  const label = ROUTING_LABEL[field];
  if (!FULL_PATH.test(t)) return { ok: false, error: `${label}: give the file's full path (e.g. /home/me/traces/run.route.csv)` };
  if (t.length > 4096) return { ok: false, error: `${label}: the path is longer than 4096 characters` };
  const other = field === 'routingTrace' ? s.routingTraceOut : s.routingTrace;
  if (other === t) return { ok: false, error: `${label}: the routing is written to another file than the trace it replays` };
  return { ok: true, patch: { [field]: t } };
}
