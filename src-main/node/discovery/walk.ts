// A bounded search of a folder for .gguf files: depth and entry count capped, hidden folders
// skipped, symlinked folders followed once (a loop ends at a folder already seen), symlinked
// files kept even when broken (they are listed as unreadable, with the reason).
import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isGgufName } from '../../shared/discovery/file-groups.js';

export interface WalkLimits {
  /** Folder levels below the root searched (0: the root's own files only). */
  readonly maxDepth: number;
  /** Directory entries looked at in all, at most. */
  readonly maxEntries: number;
}

export const FOLDER_LIMITS: WalkLimits = { maxDepth: 6, maxEntries: 50_000 };

export interface WalkResult {
  /** Relative, `/`-separated. */
  readonly files: string[];
  /** The entry limit stopped the search. */
  readonly truncated: boolean;
}

export async function findGgufFiles(root: string, limits: WalkLimits, accept: (name: string) => boolean = isGgufName): Promise<WalkResult> {
  const files: string[] = [];
  const seenDirs = new Set<string>();
  let entries = 0;
  let truncated = false;
  const visit = async (dir: string, rel: string, depth: number): Promise<void> => {
    let real: string;
    try {
      real = await realpath(dir);
    } catch {
      return;
    }
    if (seenDirs.has(real)) return;
    seenDirs.add(real);
    let list;
    try {
      list = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    list.sort((a, b) => a.name.localeCompare(b.name));
    for (const d of list) {
      if (++entries > limits.maxEntries) {
        truncated = true;
        return;
      }
      const path = join(dir, d.name);
      const relPath = rel ? `${rel}/${d.name}` : d.name;
      let isDir = d.isDirectory();
      let isFile = d.isFile();
      if (d.isSymbolicLink()) {
        try {
          const s = await stat(path);
          isDir = s.isDirectory();
          isFile = s.isFile();
        } catch {
          isFile = true; // a broken link: kept, so the list can say why it cannot be read
        }
      }
      if (isFile && accept(d.name)) files.push(relPath);
      else if (isDir && depth < limits.maxDepth && !d.name.startsWith('.')) await visit(path, relPath, depth + 1);
    }
  };
  await visit(root, '', 0);
  return { files, truncated };
}
