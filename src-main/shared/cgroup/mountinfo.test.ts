import { describe, expect, it } from 'vitest';
import { cgroupDir, findV1MemoryMount, findV2Mount, mountForPath, parseMountinfo } from './mountinfo.js';

// Captured from the CI machine (one sandbox-specific line left out).
const CI_MOUNTINFO = `22 27 0:21 / /proc rw,relatime - proc proc rw
23 27 0:22 / /sys rw,relatime - sysfs sysfs rw
24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,size=12334492k,nr_inodes=3083623,mode=755
25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24684092k
26 24 0:24 / /dev/pts rw,relatime - devpts devpts rw,mode=600,ptmxmode=000
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict,resuid=65534,resgid=65534
29 26 0:26 / /dev/pts rw,relatime - devpts devpts rw,mode=600,ptmxmode=000
30 25 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24684092k
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices
37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer
38 31 0:35 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`;

// A systemd desktop with only the unified hierarchy (shape per proc(5); optional fields present).
const V2_MOUNTINFO = `24 30 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
30 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro
61 30 0:42 / /run rw,nosuid,nodev shared:30 - tmpfs tmpfs rw,size=8123456k,nr_inodes=1048576
90 30 0:50 / /media/My\\040Disk rw,relatime shared:40 - vfat /dev/sdb1 rw
`;

// Inside a container with a cgroup namespace-less bind mount: the hierarchy root is a sub-path.
const CONTAINER_V1 = '1200 1190 0:32 /docker/abc /sys/fs/cgroup/memory ro,nosuid,nodev,noexec,relatime master:15 - cgroup cgroup rw,memory\n';

describe('parseMountinfo', () => {
  it('parses the real CI file', () => {
    const m = parseMountinfo(CI_MOUNTINFO);
    expect(m).toHaveLength(19);
    expect(m[12]).toMatchObject({ mountId: 35, parentId: 31, root: '/', mountPoint: '/sys/fs/cgroup/memory', fsType: 'cgroup' });
    expect(m[12]!.superOptions).toEqual(['rw', 'memory']);
  });

  it('skips optional fields (shared:N) and unescapes octal escapes', () => {
    const m = parseMountinfo(V2_MOUNTINFO);
    expect(m[1]).toMatchObject({ mountPoint: '/sys/fs/cgroup', fsType: 'cgroup2', source: 'cgroup2' });
    expect(m[4]!.mountPoint).toBe('/media/My Disk');
  });

  it('finds the v1 memory mount and the v2 mount on the CI machine', () => {
    const m = parseMountinfo(CI_MOUNTINFO);
    expect(findV1MemoryMount(m)).toEqual({ mountPoint: '/sys/fs/cgroup/memory', root: '/' });
    expect(findV2Mount(m)).toEqual({ mountPoint: '/sys/fs/cgroup/unified', root: '/' });
  });

  it('finds no v1 memory mount on a unified-only system', () => {
    const m = parseMountinfo(V2_MOUNTINFO);
    expect(findV1MemoryMount(m)).toBeNull();
    expect(findV2Mount(m)).toEqual({ mountPoint: '/sys/fs/cgroup', root: '/' });
  });

  it('rejects a line without the separator', () => {
    expect(() => parseMountinfo('22 27 0:21 / /proc rw,relatime proc proc rw\n')).toThrow(/separator/);
  });
});

describe('cgroupDir', () => {
  it('joins the mount point and the group path', () => {
    const mount = { mountPoint: '/sys/fs/cgroup/memory', root: '/' };
    expect(cgroupDir(mount, '/process_api/59f6')).toBe('/sys/fs/cgroup/memory/process_api/59f6');
    expect(cgroupDir(mount, '/')).toBe('/sys/fs/cgroup/memory');
  });

  it('strips the mount root when the hierarchy is mounted from a sub-path', () => {
    const mount = findV1MemoryMount(parseMountinfo(CONTAINER_V1))!;
    expect(cgroupDir(mount, '/docker/abc')).toBe('/sys/fs/cgroup/memory');
    expect(cgroupDir(mount, '/docker/abc/sub')).toBe('/sys/fs/cgroup/memory/sub');
    expect(cgroupDir(mount, '/docker/abcd')).toBeNull();
    expect(cgroupDir(mount, '/other')).toBeNull();
  });
});

describe('mountForPath', () => {
  it('picks the longest mount point, the last one on ties', () => {
    const m = parseMountinfo(CI_MOUNTINFO);
    expect(mountForPath(m, '/dev/shm/x.gguf')).toMatchObject({ mountId: 30, fsType: 'tmpfs' });
    expect(mountForPath(m, '/home/u/model.gguf')).toMatchObject({ fsType: 'ext4' });
    expect(mountForPath(m, '/devices')).toMatchObject({ fsType: 'ext4' });
    expect(mountForPath(parseMountinfo(V2_MOUNTINFO), '/run/m.gguf')).toMatchObject({ fsType: 'tmpfs' });
  });
});
