// Routing statistics runs measured, kept per model in cacheRoot()/routing.json so that a later
// `plan` of the same file predicts its expert cache from them instead of from a model of the
// routing. A model is named by its real path, size and modification time: a rewritten file
// starts again. Unreadable or foreign content is ignored, never an error.
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot } from './paths.js';
import { writeFileAtomic } from './atomic-write.js';
import { mergeRouting, type RoutingRecord } from '../shared/moe/measured-routing.js';
import type { ExpertSample } from '../shared/residency-types.js';

/** Models whose routing is kept. */
const MAX_MODELS = 64;

interface CacheFile {
  schemaVersion: 1;
  models: Record<string, RoutingRecord>;
}

export function routingCachePath(): string {
  return join(cacheRoot(), 'routing.json');
}

function keyOf(file: string): string | null {
  try {
    const st = statSync(file);
    return `${realpathSync(file)}:${st.size}:${Math.round(st.mtimeMs)}`;
  } catch {
    return null;
  }
}

function read(): CacheFile {
  try {
    const c = JSON.parse(readFileSync(routingCachePath(), 'utf8')) as CacheFile;
    if (c && c.schemaVersion === 1 && typeof c.models === 'object' && c.models !== null) return c;
  } catch {
    /* absent or unreadable */
  }
  return { schemaVersion: 1, models: {} };
}

/** What earlier runs of this file measured, or null. */
export function cachedRouting(file: string): RoutingRecord | null {
  const k = keyOf(file);
  const r = k ? read().models[k] : undefined;
  return r && Array.isArray(r.layers) && Number.isInteger(r.experts) && Number.isInteger(r.used) ? r : null;
}

/** A run's newest expert sample as a record (null when the run had no expert cache). */
export function routingOfSample(x: ExpertSample | undefined, experts: number | null, used: number | null): RoutingRecord | null {
  if (!x || !experts || !used || x.resident.length === 0) return null;
  const total = x.resident.reduce((s, l) => s + l.uses.reduce((a, b) => a + b, 0), 0);
  // hits and prefetchHits are apart: a routed expert not held was read, on a prediction or when routed.
  return { experts, used, batches: Math.round(total / (used * x.resident.length)), layers: x.resident.map((l) => ({ layer: l.layer, uses: l.uses })), readAhead: { needed: x.routed - x.hits, covered: x.prefetchHits } };
}

/** Records what a run's expert cache saw (nothing for a run without one). */
export function recordRunRouting(file: string, samples: readonly { experts?: ExpertSample }[], cache: { experts: number; used: number } | null | undefined): Promise<void> {
  const last = [...samples].reverse().find((s) => s.experts !== undefined)?.experts;
  return recordRouting(file, routingOfSample(last, cache?.experts ?? null, cache?.used ?? null));
}

/** Adds a run's routing to what earlier runs of the file recorded. Failing to write costs only the record. */
export async function recordRouting(file: string, r: RoutingRecord | null): Promise<void> {
  // A run without an expert cache (every dense run) costs nothing here.
  if (!r) return;
  const k = keyOf(file);
  if (!k) return;
  const c = read();
  const merged = mergeRouting(c.models[k] ?? null, r);
  delete c.models[k];
  c.models[k] = merged;
  // The most recently run models only: files come and go (temp files among them).
  const keys = Object.keys(c.models);
  for (const old of keys.slice(0, Math.max(0, keys.length - MAX_MODELS))) delete c.models[old];
  await writeFileAtomic(routingCachePath(), JSON.stringify(c) + '\n').catch(() => {});
}
