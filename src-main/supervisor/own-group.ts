// The memory group a capped worker runs in, seen from inside: its charge and its limit hits.
// The supervisor names the group in the worker's environment; without it the worker is not
// capped and there is nothing to read.
import { v1Group } from './v1-group.js';
import { v2Group } from './v2-group.js';
import { GROUP_DIR_ENV, GROUP_VERSION_ENV } from './start-capped.js';

export interface OwnGroup {
  readonly dir: string;
  /** Bytes charged to the group now, or null when unreadable. */
  usage(): number | null;
  /** Times the limit was hit so far (v1 memory.failcnt, v2 memory.events max), or null. */
  limitHits(): number | null;
}

export function openOwnGroup(env: NodeJS.ProcessEnv = process.env): OwnGroup | null {
  const dir = env[GROUP_DIR_ENV];
  const version = env[GROUP_VERSION_ENV];
  if (!dir || (version !== '1' && version !== '2')) return null;
  const g = version === '1' ? v1Group(dir) : v2Group(dir);
  const safe = <T>(f: () => T): T | null => {
    try {
      return f();
    } catch {
      return null;
    }
  };
  return {
    dir,
    usage: () => safe(() => g.usage()),
    limitHits: () => safe(() => g.maxEvents().value),
  };
}
