// Find a memory cgroup this process can create groups under: cgroup v2 when the memory
// controller is on the unified hierarchy for our group, else cgroup v1's memory hierarchy.
import { accessSync, constants, readFileSync } from 'node:fs';
import { parseControllers } from '../shared/cgroup/control-files.js';
import { cgroupDir, findV1MemoryMount, findV2Mount, parseMountinfo } from '../shared/cgroup/mountinfo.js';
import { parseProcCgroup, v1MemoryPath, v2Path } from '../shared/cgroup/proc-cgroup.js';
import type { CgroupVersion } from '../shared/cgroup/types.js';
import { readControl } from './control-io.js';

export interface CgroupFound {
  usable: true;
  version: CgroupVersion;
  /** Mount point of the hierarchy. */
  mountPoint: string;
  /** Our own group's directory (where new groups go, or beside it for v2 when it has processes). */
  ownDir: string;
  /** Why other options were not taken (for messages and the design note). */
  notes: string[];
}

export interface CgroupMissing {
  usable: false;
  /** Actionable: what is missing and what the user can do. */
  reason: string;
}

export type CgroupDetection = CgroupFound | CgroupMissing;

export interface DetectOptions {
  /**
   * Create groups below this directory instead of below our own group (a delegated subtree).
   * Defaults to $RAMFORGE_CGROUP_PARENT when set.
   */
  parentDir?: string;
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

const HOWTO =
  'run as root, or under a delegated cgroup (systemd: `systemd-run --user --scope -p Delegate=yes ramforge …`), ' +
  'or set RAMFORGE_CGROUP_PARENT to a writable memory cgroup directory; or drop --enforce-ram to run uncapped';

function detectAt(dir: string, notes: string[]): CgroupDetection {
  // An explicit parent: decide the version by the files it has.
  if (readControl(dir, 'cgroup.controllers') !== null) {
    const ctl = parseControllers(readControl(dir, 'cgroup.controllers') ?? '');
    if (!ctl.includes('memory')) {
      return { usable: false, reason: `${dir} has no memory controller (cgroup.controllers: '${ctl.join(' ')}'); ${HOWTO}` };
    }
    return { usable: true, version: 2, mountPoint: dir, ownDir: dir, notes };
  }
  if (readControl(dir, 'memory.limit_in_bytes') !== null) {
    return { usable: true, version: 1, mountPoint: dir, ownDir: dir, notes };
  }
  return { usable: false, reason: `${dir} is not a memory cgroup directory; ${HOWTO}` };
}

export function detectCgroup(opts: DetectOptions = {}): CgroupDetection {
  const parent = opts.parentDir ?? process.env.RAMFORGE_CGROUP_PARENT;
  const notes: string[] = [];
  if (parent) return detectAt(parent, [`using the delegated parent ${parent}`]);
  if (process.platform !== 'linux') {
    return { usable: false, reason: `memory cgroups exist only on Linux (this is ${process.platform}); drop --enforce-ram to run uncapped` };
  }
  let own, mounts;
  try {
    own = parseProcCgroup(readFileSync('/proc/self/cgroup', 'utf8'));
    mounts = parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8'));
  } catch (e) {
    return { usable: false, reason: `cannot read /proc/self/cgroup or /proc/self/mountinfo (${(e as Error).message})` };
  }

  // v2 first: on a unified system it is the only one; on a hybrid one it has memory only if
  // v1 does not.
  const v2 = findV2Mount(mounts);
  const v2Own = v2Path(own);
  if (v2 && v2Own !== null) {
    const dir = cgroupDir(v2, v2Own);
    const ctl = dir === null ? null : readControl(dir, 'cgroup.controllers');
    if (dir === null || ctl === null) {
      notes.push(`cgroup v2 at ${v2.mountPoint}: our group ${v2Own} is not visible there`);
    } else if (!parseControllers(ctl).includes('memory')) {
      notes.push(`cgroup v2 at ${v2.mountPoint}: no memory controller for our group (cgroup.controllers: '${ctl.trim()}')`);
    } else {
      return { usable: true, version: 2, mountPoint: v2.mountPoint, ownDir: dir, notes };
    }
  }

  const v1 = findV1MemoryMount(mounts);
  const v1Own = v1MemoryPath(own);
  if (v1 && v1Own !== null) {
    const dir = cgroupDir(v1, v1Own);
    if (dir === null || readControl(dir, 'memory.limit_in_bytes') === null) {
      notes.push(`cgroup v1 memory at ${v1.mountPoint}: our group ${v1Own} is not visible there`);
    } else if (!writable(dir)) {
      notes.push(`cgroup v1 memory: ${dir} is not writable by this user (or the file system is read-only)`);
    } else {
      return { usable: true, version: 1, mountPoint: v1.mountPoint, ownDir: dir, notes };
    }
  } else {
    notes.push('no cgroup v1 memory hierarchy is mounted');
  }
  return { usable: false, reason: `no usable memory cgroup: ${notes.join('; ')}; ${HOWTO}` };
}
