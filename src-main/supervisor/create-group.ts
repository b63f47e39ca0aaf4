// Make a fresh memory group for one worker. v1: below our own group. v2: below our own group
// when it can delegate memory to children, else beside it (the "no internal processes" rule
// forbids enabling controllers for children of a group that holds processes, and we are in
// ours); the parent of our group already has memory in its subtree_control, or our group would
// not have the controller.
import { mkdirSync, rmdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseControllers } from '../shared/cgroup/control-files.js';
import { ControlFileError, readControl, writeControl } from './control-io.js';
import type { CgroupFound } from './detect.js';
import { CgroupUnavailableError } from './errors.js';
import type { MemoryGroup } from './group.js';
import { v1Group } from './v1-group.js';
import { v2Group } from './v2-group.js';

export function groupName(prefix = 'ramforge'): string {
  const rand = Math.floor(Math.random() * 0x1000000).toString(16).padStart(6, '0');
  return `${prefix}-${process.pid}-${rand}`;
}

function tryMkdir(parent: string, name: string): { ok: true; dir: string } | { ok: false; why: string } {
  const dir = join(parent, name);
  try {
    mkdirSync(dir);
    return { ok: true, dir };
  } catch (e) {
    return { ok: false, why: `mkdir ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
}

function subtreeHasMemory(dir: string): boolean {
  return parseControllers(readControl(dir, 'cgroup.subtree_control') ?? '').includes('memory');
}

/** v2: a child of `parent` with the memory controller, enabling it in parent if needed. */
function v2ChildOf(parent: string, name: string, tried: string[]): string | null {
  if (!subtreeHasMemory(parent)) {
    try {
      writeControl(parent, 'cgroup.subtree_control', '+memory');
    } catch (e) {
      const errno = e instanceof ControlFileError ? e.errno : '';
      tried.push(
        errno === 'EBUSY'
          ? `${parent} holds processes, so memory cannot be enabled for its children (cgroup v2 "no internal processes" rule)`
          : `enabling +memory in ${parent}/cgroup.subtree_control: ${(e as Error).message}`,
      );
      return null;
    }
  }
  const made = tryMkdir(parent, name);
  if (!made.ok) {
    tried.push(made.why);
    return null;
  }
  if (readControl(made.dir, 'memory.max') === null) {
    rmdirSync(made.dir);
    tried.push(`${made.dir} was created without memory.max`);
    return null;
  }
  return made.dir;
}

export function createGroup(found: CgroupFound, name: string): MemoryGroup {
  const tried: string[] = [];
  if (found.version === 1) {
    const made = tryMkdir(found.ownDir, name);
    if (made.ok) return v1Group(made.dir);
    tried.push(made.why);
  } else {
    const child = v2ChildOf(found.ownDir, name, tried);
    if (child) return v2Group(child);
    const parent = dirname(found.ownDir);
    if (parent.startsWith(found.mountPoint) && parent !== found.ownDir) {
      const sibling = v2ChildOf(parent, name, tried);
      if (sibling) return v2Group(sibling);
    }
  }
  throw new CgroupUnavailableError(
    `could not create a memory cgroup (cgroup v${found.version}): ${tried.join('; ')}. ` +
      'Run as root, under a delegated cgroup (`systemd-run --user --scope -p Delegate=yes ramforge …`), ' +
      'or set RAMFORGE_CGROUP_PARENT to a writable memory cgroup directory whose cgroup.subtree_control has +memory.',
  );
}
