// The list of recently opened models, newest first, kept in <dataRoot>/recent-models.json.
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ModelRef } from '../shared/api.js';
import { writeJsonAtomic } from '../node/atomic-write.js';

const MAX_RECENT = 20;

export class RecentModels {
  constructor(readonly file: string) {}

  private async readPaths(): Promise<string[]> {
    try {
      const v: unknown = JSON.parse(await readFile(this.file, 'utf8'));
      return Array.isArray(v) ? v.filter((p): p is string => typeof p === 'string') : [];
    } catch {
      return [];
    }
  }

  /** Recent models that still exist on disk. */
  async list(): Promise<ModelRef[]> {
    const out: ModelRef[] = [];
    for (const p of await this.readPaths()) {
      const ref = await modelRef(p);
      if (ref) out.push(ref);
    }
    return out;
  }

  async add(path: string): Promise<void> {
    const paths = [path, ...(await this.readPaths()).filter((p) => p !== path)].slice(0, MAX_RECENT);
    await writeJsonAtomic(this.file, paths);
  }
}

export async function modelRef(path: string): Promise<ModelRef | null> {
  try {
    const s = await stat(path);
    if (!s.isFile()) return null;
    return { path, name: basename(path), sizeBytes: s.size };
  } catch {
    return null;
  }
}
