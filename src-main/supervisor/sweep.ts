// Groups left behind by a supervisor that could not clean up (killed with SIGKILL, machine
// crash mid-run): `<prefix>-<pid>-<6 hex>` whose supervisor pid no longer exists. Their
// processes are killed (they were capped workers whose supervisor is gone) and the group removed.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CgroupFound } from './detect.js';
import type { MemoryGroup } from './group.js';
import { killAndRemove } from './procs.js';
import { v1Group } from './v1-group.js';
import { v2Group } from './v2-group.js';
import { processAlive as alive } from '../node/process-alive.js';

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Remove stale groups where this supervisor would create its own; returns the removed paths. */
export async function sweepStaleGroups(found: CgroupFound, prefix = 'ramforge'): Promise<string[]> {
  const re = new RegExp(`^${escapeRe(prefix)}-(\\d+)-[0-9a-f]{6}$`);
  const parents = found.version === 2 && found.ownDir !== found.mountPoint ? [found.ownDir, dirname(found.ownDir)] : [found.ownDir];
  const removed: string[] = [];
  for (const parent of parents) {
    let names: string[];
    try {
      names = readdirSync(parent);
    } catch {
      continue;
    }
    for (const name of names) {
      const m = re.exec(name);
      if (!m || Number(m[1]) === process.pid || alive(Number(m[1]))) continue;
      const dir = join(parent, name);
      const g: MemoryGroup = found.version === 1 ? v1Group(dir) : v2Group(dir);
      const r = await killAndRemove(g, 2000);
      if (r.removed) removed.push(dir);
    }
  }
  return removed;
}
