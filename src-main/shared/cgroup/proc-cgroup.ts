// Parser for /proc/<pid>/cgroup: one line per hierarchy, "ID:CONTROLLERS:PATH".
// v1 lines name their controllers ("4:memory:/a/b"); the v2 line is "0::/a/b".

export interface ProcCgroupEntry {
  hierarchyId: number;
  /** Controllers bound to this v1 hierarchy; empty for the v2 (unified) line. */
  controllers: string[];
  /** Path of the process's group, relative to the hierarchy's root (always starts with "/"). */
  path: string;
}

export function parseProcCgroup(text: string): ProcCgroupEntry[] {
  const out: ProcCgroupEntry[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    // The path may itself contain ':' — split only on the first two.
    const a = line.indexOf(':');
    const b = a < 0 ? -1 : line.indexOf(':', a + 1);
    if (a < 0 || b < 0) throw new Error(`/proc/self/cgroup: malformed line '${line}'`);
    const id = Number(line.slice(0, a));
    if (!Number.isInteger(id) || id < 0) throw new Error(`/proc/self/cgroup: bad hierarchy id in '${line}'`);
    const ctl = line.slice(a + 1, b);
    out.push({ hierarchyId: id, controllers: ctl === '' ? [] : ctl.split(','), path: line.slice(b + 1) });
  }
  return out;
}

/** Our group in the v1 hierarchy that carries the memory controller, or null. */
export function v1MemoryPath(entries: ProcCgroupEntry[]): string | null {
  return entries.find((e) => e.hierarchyId !== 0 && e.controllers.includes('memory'))?.path ?? null;
}

/** Our group in the v2 (unified) hierarchy, or null when the process has no "0::" line. */
export function v2Path(entries: ProcCgroupEntry[]): string | null {
  return entries.find((e) => e.hierarchyId === 0 && e.controllers.length === 0)?.path ?? null;
}
