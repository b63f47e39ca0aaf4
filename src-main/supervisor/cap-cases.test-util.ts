// The supervisor's behaviour tests, run once per cgroup version by supervisor.v1.test.ts and
// supervisor.v2.test.ts against the real hierarchy (not a test file itself).
import { mkdirSync, readFileSync, mkdtempSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCapped, type UsageSample } from './start-capped.js';
import { sweepStaleGroups } from './sweep.js';
import { dropFileCache } from './cold-start.js';
import { cgroupFor, deadPid, FIXTURES, gone, MiB, pidAlive, waitFor } from './support.test-util.js';

export function defineCapTests(version: 1 | 2): void {
  const { found, why, skip } = cgroupFor(version);

  describe.skipIf(skip)(`supervisor on cgroup v${version} (real hierarchy)`, () => {
    const det = () => {
      expect(found, `no usable cgroup v${version}: ${why}`).not.toBeNull();
      return found!;
    };

    it('a worker that keeps allocating under a 64 MiB cap is OOM-killed: status oom, exit 137, no group left', async () => {
      const run = startCapped({
        detection: det(),
        limitBytes: 64 * MiB,
        timeoutS: 60,
        command: process.execPath,
        args: [join(FIXTURES, 'grow.mjs')],
        stdio: 'ignore',
      });
      const o = await run.done;
      expect(o.status).toBe('oom');
      expect(o.exitCode).toBe(137);
      expect(o.signal).toBe('SIGKILL');
      expect(o.cgroup.oom_kills).toBeGreaterThanOrEqual(1);
      expect(o.message).toMatch(/^killed by the memory cap \(\d+ OOM kills?\)/);
      expect(o.cgroup.peak_bytes).not.toBeNull();
      expect(o.cgroup.peak_bytes!).toBeLessThanOrEqual(o.cgroup.limit_bytes);
      expect(o.cgroup.removed).toBe(true);
      expect(gone(run.cgroupPath)).toBe(true);
      console.info(`v${version} OOM run: limit ${o.cgroup.limit_bytes}, peak ${o.cgroup.peak_bytes}, hits ${o.cgroup.max_events}, OOM kills ${o.cgroup.oom_kills}`);
    });

    it('a worker under the cap runs inside the group, talks over IPC after the exec, and ends ok with peak ≤ exact limit', async () => {
      const samples: UsageSample[] = [];
      const run = startCapped({
        detection: det(),
        limitBytes: 64 * MiB,
        timeoutS: 60,
        command: process.execPath,
        args: [join(FIXTURES, 'steady.mjs'), '16'],
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        sampleMs: 20,
        onSample: (s) => samples.push(s),
      });
      const got = new Promise<{ pid: number; heldMiB: number; cgroup: string | null }>((resolve) =>
        run.child.once('message', (m) => {
          resolve(m as { pid: number; heldMiB: number; cgroup: string | null });
          run.child.send('bye');
        }),
      );
      const msg = await got;
      const o = await run.done;
      expect(msg.pid).toBe(run.child.pid); // exec kept the pid: the shell became the worker
      expect(msg.heldMiB).toBe(16);
      const name = run.cgroupPath.slice(run.cgroupPath.lastIndexOf('/') + 1);
      expect(msg.cgroup).toContain(`/${name}`); // the worker saw itself inside the group
      expect(o.status).toBe('ok');
      expect(o.exitCode).toBe(0);
      expect(o.cgroup.limit_bytes).toBe(64 * MiB);
      expect(o.cgroup.limit_bytes_exact).toBe(String(64 * MiB));
      expect(o.cgroup.oom_kills).toBe(0);
      expect(o.cgroup.peak_bytes!).toBeGreaterThanOrEqual(16 * MiB);
      expect(o.cgroup.peak_bytes!).toBeLessThanOrEqual(64 * MiB);
      expect(samples.length).toBeGreaterThan(0);
      expect(samples.every((s) => s.limitBytes === 64 * MiB && s.usageBytes <= 64 * MiB)).toBe(true);
      expect(o.cgroup.stat.anon).not.toBeNull();
      expect(gone(run.cgroupPath)).toBe(true);
      console.info(`v${version} steady run: limit ${o.cgroup.limit_bytes}, peak ${o.cgroup.peak_bytes} (${o.cgroup.sources.peak_bytes}), ${samples.length} samples`);
    });

    it('a cold read of a file 3x the cap ends ok, peak ≤ limit, and the limit hits are counted', async () => {
      // Clean page cache is reclaimable, like a model mapping larger than the cap. (Writing
      // instead is not safe under v1: dirty pages are not throttled per group and can OOM it.)
      const dir = mkdtempSync(join(tmpdir(), 'ramforge-cap-'));
      try {
        const f = join(dir, 'model.bin');
        writeFileSync(f, Buffer.alloc(96 * MiB, 3));
        const [drop] = await dropFileCache([f]);
        expect(drop!.status).toBe('dropped');
        const run = startCapped({ detection: det(), limitBytes: 32 * MiB, timeoutS: 60, command: 'cat', args: [f], stdio: 'ignore' });
        const o = await run.done;
        expect(o.status).toBe('ok');
        expect(o.cgroup.oom_kills).toBe(0);
        expect(o.cgroup.max_events).toBeGreaterThan(0);
        expect(o.cgroup.peak_bytes!).toBeLessThanOrEqual(32 * MiB);
        expect(gone(run.cgroupPath)).toBe(true);
        console.info(`v${version} cold read of 96 MiB under 32 MiB: peak ${o.cgroup.peak_bytes}, hits ${o.cgroup.max_events}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('reports the limit the kernel holds (page-rounded) next to the one requested', async () => {
      const run = startCapped({ detection: det(), limitBytes: 64 * MiB + 100, command: 'true', stdio: 'ignore' });
      const o = await run.done;
      expect(o.status).toBe('ok');
      expect(o.cgroup.limit_bytes_requested).toBe(64 * MiB + 100);
      expect(o.cgroup.limit_bytes).toBe(64 * MiB);
    });

    it('--enforce-timeout: kills the group after 1 s → timeout, 124, no process and no group left', async () => {
      const run = startCapped({ detection: det(), limitBytes: 64 * MiB, timeoutS: 1, command: 'sleep', args: ['30'], stdio: 'ignore' });
      const pid = run.child.pid!;
      const o = await run.done;
      expect(o.status).toBe('timeout');
      expect(o.exitCode).toBe(124);
      expect(o.wallMs).toBeGreaterThanOrEqual(1000);
      expect(o.wallMs).toBeLessThan(10_000);
      expect(pidAlive(pid)).toBe(false);
      expect(gone(run.cgroupPath)).toBe(true);
    });

    it('kills what the worker left running in the group before removing it', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ramforge-cap-'));
      try {
        const pidFile = join(dir, 'pid');
        const run = startCapped({
          detection: det(),
          limitBytes: 64 * MiB,
          command: process.execPath,
          args: [join(FIXTURES, 'leave-child.mjs'), pidFile],
          stdio: 'ignore',
        });
        const o = await run.done;
        const orphan = Number(readFileSync(pidFile, 'utf8'));
        expect(o.status).toBe('ok');
        expect(await waitFor(() => !pidAlive(orphan), 2000)).toBe(true);
        expect(gone(run.cgroupPath)).toBe(true);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('kill(reason) stops the run: status error with the reason, group removed', async () => {
      const run = startCapped({ detection: det(), limitBytes: 64 * MiB, command: 'sleep', args: ['30'], stdio: 'ignore' });
      setTimeout(() => run.kill('user cancelled'), 200);
      const o = await run.done;
      expect(o.status).toBe('error');
      expect(o.message).toMatch(/user cancelled/);
      expect(gone(run.cgroupPath)).toBe(true);
    });

    it('sweeps a group left behind by a supervisor that no longer exists, and keeps live ones', async () => {
      const d = det();
      // Own prefix, so sweeps by supervisors running in parallel tests do not take it first.
      const stale = join(d.ownDir, `rf-sweeptest-${await deadPid()}-abcdef`);
      const mine = join(d.ownDir, `rf-sweeptest-${process.pid}-abcdef`);
      mkdirSync(stale);
      mkdirSync(mine);
      try {
        const removed = await sweepStaleGroups(d, 'rf-sweeptest');
        expect(removed).toContain(stale);
        expect(gone(stale)).toBe(true);
        expect(gone(mine)).toBe(false);
      } finally {
        for (const p of [stale, mine]) if (!gone(p)) rmdirSync(p);
      }
    });

    it('a worker that cannot start (missing cwd) ends as error, and the group is removed', async () => {
      const run = startCapped({ detection: det(), limitBytes: 64 * MiB, command: 'true', cwd: join(tmpdir(), `ramforge-missing-${process.pid}`), stdio: 'ignore' });
      const o = await run.done;
      expect(o.status).toBe('error');
      expect(o.message).toMatch(/could not be started.*ENOENT/);
      expect(gone(run.cgroupPath)).toBe(true);
    });

    it('a throwing onSample listener does not stop the watch or the cleanup', async () => {
      const run = startCapped({
        detection: det(),
        limitBytes: 64 * MiB,
        command: 'sleep',
        args: ['0.3'],
        stdio: 'ignore',
        sampleMs: 20,
        onSample: () => {
          throw new Error('listener bug');
        },
      });
      const o = await run.done;
      expect(o.status).toBe('ok');
      expect(o.cgroup.usage_samples).toBeGreaterThan(1);
      expect(gone(run.cgroupPath)).toBe(true);
    });
  });
}
