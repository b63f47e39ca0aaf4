import { describe, expect, it } from 'vitest';
import { parseProcCgroup, v1MemoryPath, v2Path } from './proc-cgroup.js';

// Captured from the CI machine (cgroup v1 controllers plus an empty unified hierarchy).
const V1_HYBRID = `9:name=systemd:/
8:pids:/
7:blkio:/
6:freezer:/
5:devices:/
4:memory:/process_api/59f62b442dde38ed26fc60b9b99cf064
3:cpuset:/
2:cpuacct:/
1:cpu:/
0::/
`;

// A unified-only desktop (systemd user session), as proc(5) and cgroups(7) describe it.
const V2_ONLY = '0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/vte-spawn-5b1c.scope\n';

describe('parseProcCgroup', () => {
  it('parses every line of a real hybrid (v1 + v2) file', () => {
    const e = parseProcCgroup(V1_HYBRID);
    expect(e).toHaveLength(10);
    expect(e[0]).toEqual({ hierarchyId: 9, controllers: ['name=systemd'], path: '/' });
    expect(e[9]).toEqual({ hierarchyId: 0, controllers: [], path: '/' });
  });

  it('finds the v1 memory group and the v2 group', () => {
    const e = parseProcCgroup(V1_HYBRID);
    expect(v1MemoryPath(e)).toBe('/process_api/59f62b442dde38ed26fc60b9b99cf064');
    expect(v2Path(e)).toBe('/');
  });

  it('handles a v2-only file: no v1 memory group', () => {
    const e = parseProcCgroup(V2_ONLY);
    expect(v1MemoryPath(e)).toBeNull();
    expect(v2Path(e)).toMatch(/vte-spawn-5b1c\.scope$/);
  });

  it('finds memory in a v1 line that binds several controllers', () => {
    expect(v1MemoryPath(parseProcCgroup('3:cpu,cpuacct,memory:/docker/abc\n'))).toBe('/docker/abc');
  });

  it('keeps colons inside the path', () => {
    expect(parseProcCgroup('0::/a:b/c\n')[0]!.path).toBe('/a:b/c');
  });

  it('rejects a malformed line', () => {
    expect(() => parseProcCgroup('memory /x\n')).toThrow(/malformed/);
  });
});
