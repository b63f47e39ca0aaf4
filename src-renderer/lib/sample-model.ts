// Residency samples, from live `sample` events (already typed) or from a saved report's
// timeline (snake_case or camelCase, possibly with missing fields).
import type { ResidencyEvent, ResidencyEventKind, ResidencySample } from '../../src-main/shared/residency-types.js';
import { arr, num, str } from './fields.js';
import { normalizeExpertSample } from './expert-model.js';

const KINDS: readonly ResidencyEventKind[] = ['prefetch', 'drop', 'late', 'stall', 'release'];
const PHASES: readonly ResidencySample['phase'][] = ['load', 'prompt', 'decode', 'idle'];

export function normalizeEvent(raw: unknown): ResidencyEvent | null {
  const kind = str(raw, 'kind', 'type');
  if (!kind || !(KINDS as readonly string[]).includes(kind)) return null;
  const ev: ResidencyEvent = {
    tMs: num(raw, 'tMs', 't') ?? 0,
    kind: kind as ResidencyEventKind,
    layer: num(raw, 'layer') ?? -1,
    bytes: num(raw, 'bytes') ?? 0,
  };
  const dur = num(raw, 'durMs', 'dur');
  if (dur !== null) ev.durMs = dur;
  return ev;
}

export function normalizeSample(raw: unknown): ResidencySample {
  const phase = str(raw, 'phase');
  const experts = normalizeExpertSample((raw as { experts?: unknown } | null)?.experts);
  const network = networkOf(raw);
  return {
    tMs: num(raw, 'tMs', 't') ?? 0,
    token: num(raw, 'token', 'tokens') ?? 0,
    phase: phase && (PHASES as readonly string[]).includes(phase) ? (phase as ResidencySample['phase']) : 'decode',
    layerResident: arr(raw, 'layerResident', 'layerResidentBytes', 'residentBytes').map((v) =>
      typeof v === 'number' && Number.isFinite(v) ? v : null,
    ),
    persistentResident: num(raw, 'persistentResident', 'persistentResidentBytes'),
    rssBytes: num(raw, 'rssBytes', 'rss'),
    cgroupBytes: num(raw, 'cgroupBytes', 'cgroupUsageBytes'),
    cgroupLimitBytes: num(raw, 'cgroupLimitBytes'),
    limitHits: num(raw, 'limitHits'),
    pinnedResident: num(raw, 'pinnedResident'),
    pinnedBytes: num(raw, 'pinnedBytes'),
    readBytes: num(raw, 'readBytes'),
    majorFaults: num(raw, 'majorFaults'),
    decodeTokS: num(raw, 'decodeTokS', 'tokS'),
    events: arr(raw, 'events')
      .map(normalizeEvent)
      .filter((e): e is ResidencyEvent => e !== null),
    ...(experts ? { experts } : {}),
    ...(Array.isArray((raw as { outsideResident?: unknown } | null)?.outsideResident)
      ? { outsideResident: arr(raw, 'outsideResident').map((v) => (typeof v === 'number' && Number.isFinite(v) ? v : null)) }
      : {}),
    ...(network ? { network } : {}),
  };
}

/** The waits on RPC nodes, kept as the worker sent them (a report's timeline carries them unchanged). */
function networkOf(raw: unknown): ResidencySample['network'] | null {
  const n = (raw as { network?: { nodes?: unknown } } | null)?.network;
  if (!n || !Array.isArray(n.nodes)) return null;
  const ok = n.nodes.every((x: unknown) => typeof (x as { endpoint?: unknown }).endpoint === 'string' && typeof (x as { waitMs?: unknown }).waitMs === 'number');
  return ok ? (n as ResidencySample['network']) : null;
}

/** All events of a sample series, in time order. */
export function eventsOf(samples: readonly ResidencySample[], extra: readonly ResidencyEvent[] = []): ResidencyEvent[] {
  const out: ResidencyEvent[] = [...extra];
  for (const s of samples) out.push(...s.events);
  return out.sort((a, b) => a.tMs - b.tMs);
}
