// Model discovery: every source's candidates, the same file found twice listed once (under
// the first source searched), then every header read. Reads headers only; never copies, moves
// or writes anything.
import { realpath, stat } from 'node:fs/promises';
import type { Candidate, DiscoveredModel, DiscoveryRoot } from '../../shared/discovery/types.js';
import { discoveryRoots, type DiscoveryPlaces, type Root } from './locations.js';
import { ollamaCandidates } from './ollama-store.js';
import { hfCandidates } from './hf-cache-scan.js';
import { folderCandidates } from './folder-scan.js';
import { readCandidate, type Planner } from './read-candidate.js';

async function isDir(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

function candidatesOf(r: Root): Promise<Candidate[]> {
  if (r.source === 'ollama') return ollamaCandidates(r.path);
  if (r.source === 'huggingface') return hfCandidates(r.path);
  return folderCandidates(r.source, r.path);
}

export async function findCandidates(places: DiscoveryPlaces): Promise<{ roots: DiscoveryRoot[]; candidates: Candidate[] }> {
  const roots: DiscoveryRoot[] = [];
  const candidates: Candidate[] = [];
  const seen = new Set<string>();
  for (const r of discoveryRoots(places)) {
    const present = await isDir(r.path);
    roots.push({ ...r, present });
    if (!present) continue;
    for (const c of await candidatesOf(r)) {
      const first = c.files[0] as string;
      const key = await realpath(first).catch(() => first);
      if (seen.has(key)) continue;
      seen.add(key);
      candidates.push(c);
    }
  }
  return { roots, candidates };
}

export async function discoverModels(places: DiscoveryPlaces, planner: Planner | null): Promise<{ roots: DiscoveryRoot[]; models: DiscoveredModel[] }> {
  const { roots, candidates } = await findCandidates(places);
  const models: DiscoveredModel[] = [];
  for (const c of candidates) models.push(await readCandidate(c, planner));
  return { roots, models };
}
