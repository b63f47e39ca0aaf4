// GGUF files found in a folder, grouped into models: a split set (name-00001-of-00003.gguf ...)
// is one model, listed once, with the shards it is missing. Pure: works on relative paths.
import { parseSplitName, splitFileName } from '../gguf/split.js';

export interface FileGroup {
  /** Relative paths; shards in order. */
  readonly files: string[];
  /** 1-based numbers of the shards of a split set that are not there. */
  readonly missing: number[];
  /** The name shown: the path, or for a split set `dir/prefix (N shards)`. */
  readonly label: string;
  /** Files the model has when complete (1 unless split). */
  readonly shardCount: number;
}

function splitPath(rel: string): { dir: string; base: string } {
  const i = rel.lastIndexOf('/');
  return i < 0 ? { dir: '', base: rel } : { dir: rel.slice(0, i + 1), base: rel.slice(i + 1) };
}

export function isGgufName(name: string): boolean {
  return name.toLowerCase().endsWith('.gguf');
}

/** Groups relative paths (`/`-separated) into models, sorted by label. */
export function groupGgufFiles(paths: readonly string[]): FileGroup[] {
  const singles: FileGroup[] = [];
  const sets = new Map<string, { dir: string; prefix: string; count: number; have: Map<number, string> }>();
  for (const rel of [...paths].sort()) {
    const { dir, base } = splitPath(rel);
    const s = parseSplitName(base);
    if (!s) {
      singles.push({ files: [rel], missing: [], label: rel, shardCount: 1 });
      continue;
    }
    const key = `${dir}\0${s.prefix}\0${s.count}`;
    const set = sets.get(key) ?? { dir, prefix: s.prefix, count: s.count, have: new Map<number, string>() };
    set.have.set(s.no, rel);
    sets.set(key, set);
  }
  const groups = [...singles];
  for (const s of sets.values()) {
    const files: string[] = [];
    const missing: number[] = [];
    for (let i = 1; i <= s.count; i++) {
      const f = s.have.get(i);
      if (f) files.push(f);
      else missing.push(i);
    }
    const label = s.count === 1 ? `${s.dir}${splitFileName(s.prefix, 1, 1)}` : `${s.dir}${s.prefix} (${s.count} shards)`;
    groups.push({ files, missing, label, shardCount: s.count });
  }
  return groups.sort((a, b) => a.label.localeCompare(b.label));
}

/** Why an incomplete split set cannot be read. */
export function missingShardsReason(g: FileGroup): string {
  const list = g.missing.length > 4 ? `${g.missing.slice(0, 4).join(', ')} and ${g.missing.length - 4} more` : g.missing.join(', ');
  return `split set incomplete: shard${g.missing.length > 1 ? 's' : ''} ${list} of ${g.shardCount} missing`;
}
