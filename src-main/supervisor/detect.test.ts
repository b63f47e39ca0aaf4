import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../shared/errors.js';
import { detectCgroup } from './detect.js';
import { CgroupUnavailableError } from './errors.js';
import { startCapped } from './start-capped.js';

describe('no usable cgroup', () => {
  it('a directory that is not a cgroup is refused with an actionable reason', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ramforge-notcg-'));
    try {
      const d = detectCgroup({ parentDir: dir });
      expect(d.usable).toBe(false);
      if (!d.usable) {
        expect(d.reason).toContain(dir);
        expect(d.reason).toMatch(/Delegate=yes|RAMFORGE_CGROUP_PARENT/);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('startCapped throws CgroupUnavailableError (exit 2) and starts nothing', () => {
    let err: unknown;
    try {
      startCapped({ detection: { usable: false, reason: 'no memory controller' }, limitBytes: 1 << 26, command: 'true' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CgroupUnavailableError);
    expect((err as CgroupUnavailableError).exitCode).toBe(EXIT.usage);
    expect((err as Error).message).toMatch(/cannot enforce the memory cap: no memory controller/);
  });

  it('rejects a limit that is not a positive whole number of bytes, and a zero timeout', () => {
    expect(() => startCapped({ limitBytes: 0, command: 'true' })).toThrow(RangeError);
    expect(() => startCapped({ limitBytes: 1.5, command: 'true' })).toThrow(RangeError);
    expect(() => startCapped({ limitBytes: 4096, timeoutS: 0, command: 'true' })).toThrow(/timeoutS/);
  });
});
