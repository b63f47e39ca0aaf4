// GGUF models in the Hugging Face hub cache: hub/models--<org>--<name>/snapshots/<rev>/...
// (symlinks into blobs/; a broken one is an interrupted download). The revision refs/main
// points at is listed by the repo's name; other revisions carry `@<rev>`.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Candidate } from '../../shared/discovery/types.js';
import { hfRepoId, orderRevisions } from '../../shared/discovery/hf-cache.js';
import { groupGgufFiles, missingShardsReason } from '../../shared/discovery/file-groups.js';
import { findGgufFiles } from './walk.js';

async function dirNames(path: string): Promise<string[]> {
  try {
    return (await readdir(path, { withFileTypes: true })).filter((d) => d.isDirectory() || d.isSymbolicLink()).map((d) => d.name);
  } catch {
    return [];
  }
}

async function mainRevision(repoDir: string): Promise<string | null> {
  try {
    const text = (await readFile(join(repoDir, 'refs', 'main'), 'utf8')).trim();
    return /^[0-9a-f]{7,64}$/i.test(text) ? text : null;
  } catch {
    return null;
  }
}

export async function hfCandidates(root: string): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (const dirName of (await dirNames(root)).sort()) {
    const repo = hfRepoId(dirName);
    if (!repo) continue;
    const repoDir = join(root, dirName);
    const main = await mainRevision(repoDir);
    const revisions = orderRevisions(await dirNames(join(repoDir, 'snapshots')), main);
    for (const rev of revisions) {
      const snap = join(repoDir, 'snapshots', rev);
      const found = await findGgufFiles(snap, { maxDepth: 4, maxEntries: 10_000 });
      const at = rev === main || revisions.length === 1 ? '' : `@${rev.slice(0, 8)}`;
      for (const g of groupGgufFiles(found.files)) {
        out.push({
          source: 'huggingface',
          root,
          name: `${repo}${at}/${g.label}`,
          files: g.files.map((f) => join(snap, f)),
          ...(g.missing.length ? { problem: missingShardsReason(g) } : {}),
        });
      }
    }
  }
  return out;
}
