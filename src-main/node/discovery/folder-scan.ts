// GGUF models in a plain folder tree (LM Studio's models folder, llama.cpp's cache, RAMforge's
// own folder, Downloads, folders the user adds): files grouped into models, split sets once.
import { join } from 'node:path';
import type { Candidate, DiscoverySource } from '../../shared/discovery/types.js';
import { groupGgufFiles, missingShardsReason } from '../../shared/discovery/file-groups.js';
import { FOLDER_LIMITS, findGgufFiles, type WalkLimits } from './walk.js';

/** How deep each source keeps its files. */
export const SOURCE_LIMITS: Partial<Record<DiscoverySource, WalkLimits>> = {
  // models/<publisher>/<repo>/<file>.gguf
  lmstudio: { maxDepth: 4, maxEntries: 20_000 },
  'llama.cpp': { maxDepth: 2, maxEntries: 20_000 },
  ramforge: { maxDepth: 3, maxEntries: 20_000 },
  // The top of Downloads only: it is not a model store.
  downloads: { maxDepth: 0, maxEntries: 20_000 },
};

export async function folderCandidates(source: DiscoverySource, root: string): Promise<Candidate[]> {
  const found = await findGgufFiles(root, SOURCE_LIMITS[source] ?? FOLDER_LIMITS);
  return groupGgufFiles(found.files).map((g) => ({
    source,
    root,
    name: g.label,
    files: g.files.map((f) => join(root, ...f.split('/'))),
    ...(g.missing.length ? { problem: missingShardsReason(g) } : {}),
  }));
}
