// Parser for /proc/<pid>/mountinfo (proc(5)): finds the cgroup v1 memory mount, the cgroup2
// mount, and the filesystem type that holds a given path.

export interface MountEntry {
  mountId: number;
  parentId: number;
  /** Root of the mount within its filesystem (for cgroup mounts: the hierarchy path shown). */
  root: string;
  mountPoint: string;
  fsType: string;
  source: string;
  superOptions: string[];
}

/** mountinfo escapes space, tab, newline and backslash as \ooo octal. */
function unescape(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

export function parseMountinfo(text: string): MountEntry[] {
  const out: MountEntry[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    const sep = line.indexOf(' - ');
    if (sep < 0) throw new Error(`mountinfo: no ' - ' separator in '${line}'`);
    const left = line.slice(0, sep).split(' ');
    const right = line.slice(sep + 3).split(' ');
    if (left.length < 6 || right.length < 2) throw new Error(`mountinfo: too few fields in '${line}'`);
    out.push({
      mountId: Number(left[0]),
      parentId: Number(left[1]),
      root: unescape(left[3]!),
      mountPoint: unescape(left[4]!),
      fsType: right[0]!,
      source: unescape(right[1]!),
      superOptions: (right[2] ?? '').split(',').filter((o) => o !== ''),
    });
  }
  return out;
}

export interface CgroupMount {
  mountPoint: string;
  /** Hierarchy path at the mount point (usually "/"; a sub-path inside containers). */
  root: string;
}

/** Later mounts hide earlier ones on the same point: the last match wins. */
function last<T>(xs: T[]): T | null {
  return xs.length > 0 ? xs[xs.length - 1]! : null;
}

export function findV1MemoryMount(mounts: MountEntry[]): CgroupMount | null {
  const m = last(mounts.filter((e) => e.fsType === 'cgroup' && e.superOptions.includes('memory')));
  return m ? { mountPoint: m.mountPoint, root: m.root } : null;
}

export function findV2Mount(mounts: MountEntry[]): CgroupMount | null {
  const m = last(mounts.filter((e) => e.fsType === 'cgroup2'));
  return m ? { mountPoint: m.mountPoint, root: m.root } : null;
}

/**
 * Directory of a group given the mount and the group's path from /proc/self/cgroup.
 * Null when the group lies outside what this mount shows.
 */
export function cgroupDir(mount: CgroupMount, groupPath: string): string | null {
  const root = mount.root === '/' ? '' : mount.root.replace(/\/+$/, '');
  if (root !== '' && groupPath !== root && !groupPath.startsWith(root + '/')) return null;
  const rel = groupPath.slice(root.length).replace(/^\/+/, '');
  const base = mount.mountPoint.replace(/\/+$/, '');
  return rel === '' ? (base === '' ? '/' : base) : `${base}/${rel}`;
}

/** The mount that holds an absolute, symlink-free path: the longest matching mount point. */
export function mountForPath(mounts: MountEntry[], absPath: string): MountEntry | null {
  let best: MountEntry | null = null;
  for (const m of mounts) {
    const p = m.mountPoint;
    const inside = p === '/' || absPath === p || absPath.startsWith(p.endsWith('/') ? p : p + '/');
    // ">=" so that a later mount over the same point wins.
    if (inside && (best === null || p.length >= best.mountPoint.length)) best = m;
  }
  return best;
}
