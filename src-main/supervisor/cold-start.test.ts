// Cold start on real files: drop a file's page cache and check with fincore that it is gone.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mountForPath, parseMountinfo } from '../shared/cgroup/mountinfo.js';
import { dropFileCache, residentBytes } from './cold-start.js';

const MiB = 1024 * 1024;

function has(cmd: string): boolean {
  try {
    execFileSync(cmd, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const mounts = parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8'));
const tmpFs = mountForPath(mounts, tmpdir())?.fsType ?? 'unknown';
const tools = has('fincore') && has('dd');
const why = !tools ? 'fincore (util-linux) or GNU dd is missing' : tmpFs === 'tmpfs' ? `${tmpdir()} is on tmpfs` : '';
const skip = why !== '' && process.env.CI !== 'true';
if (skip) console.warn(`skipping the cold-start drop test: ${why}`);

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe.skipIf(skip)('dropFileCache on a disk file system', () => {
  it('drops a cached file: resident before > 0, after = 0 per fincore', async () => {
    expect(why, why).toBe('');
    const dir = mkdtempSync(join(tmpdir(), 'ramforge-cold-'));
    dirs.push(dir);
    const f = join(dir, 'model.bin');
    writeFileSync(f, Buffer.alloc(8 * MiB, 7));
    readFileSync(f); // make sure it is cached
    expect(await residentBytes(f)).toBeGreaterThan(0);
    const [r] = await dropFileCache([f]);
    expect(r).toMatchObject({ path: f, status: 'dropped', method: 'dd-nocache', sizeBytes: 8 * MiB, residentAfterBytes: 0 });
    expect(r!.residentBeforeBytes).toBeGreaterThan(0);
    expect(r!.reason).toBeNull();
    expect(await residentBytes(f)).toBe(0);
  });

  it('uses the addon hook when one is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ramforge-cold-'));
    dirs.push(dir);
    const f = join(dir, 'm.bin');
    writeFileSync(f, Buffer.alloc(MiB, 1));
    const seen: string[] = [];
    const [r] = await dropFileCache([f], { fadviseDontNeed: (p) => void seen.push(p) });
    expect(seen).toEqual([f]);
    expect(r!.method).toBe('addon-fadvise');
    // The fake hook dropped nothing, and the result says so instead of claiming success.
    expect(r!.status).toBe('partial');
    expect(r!.reason).toMatch(/stayed resident/);
  });
});

describe('dropFileCache: what cannot be done', () => {
  it('reports a missing file as failed with the reason', async () => {
    const [r] = await dropFileCache([join(tmpdir(), 'ramforge-no-such-file-' + process.pid)]);
    expect(r!.status).toBe('failed');
    expect(r!.reason).toMatch(/ENOENT/);
  });

  // Any writable tmpfs this machine mounts (found through mountinfo, not a fixed path).
  const tmpfsDir = (() => {
    // Kernel pseudo-trees (/sys/fs/cgroup is often a tmpfs) are left alone.
    for (const m of mounts.filter((e) => e.fsType === 'tmpfs' && !/^\/(sys|proc)(\/|$)/.test(e.mountPoint))) {
      try {
        return mkdtempSync(join(m.mountPoint, 'ramforge-tmpfs-'));
      } catch {
        /* read-only or not ours: try the next */
      }
    }
    return null;
  })();
  if (tmpfsDir) dirs.push(tmpfsDir);
  if (!tmpfsDir) console.warn('skipping the tmpfs case: no writable tmpfs mount');

  it.skipIf(!tmpfsDir)('says "not possible on tmpfs" for a file on tmpfs', async () => {
    const f = join(tmpfsDir!, 'm.bin');
    writeFileSync(f, Buffer.alloc(MiB, 1));
    const [r] = await dropFileCache([f]);
    expect(r!.status).toBe('impossible');
    expect(r!.fsType).toBe('tmpfs');
    expect(r!.reason).toMatch(/^not possible on tmpfs/);
  });
});
