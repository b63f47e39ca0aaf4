// The discovered-models list as the sidebar shows it, read defensively from
// `api.discoverModels()` (the JSON of `ramforge models --json` plus the added folders; typed
// `unknown` on the wire). Entries are grouped by source in the order discovery searched them.
import { DISCOVERY_SOURCES, SOURCE_LABELS, type DiscoverySource } from '../../src-main/shared/discovery/types.js';
import { arr, bool, num, obj, str } from './fields.js';

export interface DiscoveredEntry {
  source: DiscoverySource;
  name: string;
  path: string;
  kind: string;
  chat: boolean;
  reason: string | null;
  architecture: string | null;
  quantization: string | null;
  fileBytes: number | null;
  verdict: string | null;
  verdictText: string | null;
  tokS: number | null;
  planError: string | null;
}

export interface DiscoveryGroup {
  source: DiscoverySource;
  label: string;
  roots: string[];
  entries: DiscoveredEntry[];
}

export interface DiscoveryInfo {
  groups: DiscoveryGroup[];
  folders: string[];
  budgetBytes: number | null;
  chatCount: number;
}

function asSource(v: string | null): DiscoverySource {
  return (DISCOVERY_SOURCES as readonly string[]).includes(v ?? '') ? (v as DiscoverySource) : 'folder';
}

export function normalizeDiscovery(raw: unknown): DiscoveryInfo {
  const entries: DiscoveredEntry[] = arr(raw, 'models').map((m) => {
    const plan = obj(m, 'plan');
    return {
      source: asSource(str(m, 'source')),
      name: str(m, 'name') ?? str(m, 'path') ?? '?',
      path: str(m, 'path') ?? '',
      kind: str(m, 'kind') ?? 'unreadable',
      chat: bool(m, 'chat') === true,
      reason: str(m, 'reason'),
      architecture: str(m, 'architecture'),
      quantization: str(m, 'quantization'),
      fileBytes: num(m, 'fileBytes'),
      verdict: plan ? str(plan, 'verdict') : null,
      verdictText: plan ? str(plan, 'reason') : null,
      tokS: plan ? num(plan, 'predictedDecodeTokS') : null,
      planError: str(m, 'planError'),
    };
  });
  const roots = arr(raw, 'roots');
  const groups: DiscoveryGroup[] = [];
  for (const source of DISCOVERY_SOURCES) {
    const mine = entries.filter((e) => e.source === source);
    const present = roots.filter((r) => str(r, 'source') === source && bool(r, 'present') === true).map((r) => str(r, 'path') ?? '');
    if (mine.length > 0) groups.push({ source, label: SOURCE_LABELS[source], roots: present, entries: mine });
  }
  return {
    groups,
    folders: arr(raw, 'folders').filter((f): f is string => typeof f === 'string'),
    budgetBytes: num(obj(raw, 'budget'), 'ramBytes'),
    chatCount: entries.filter((e) => e.chat).length,
  };
}
