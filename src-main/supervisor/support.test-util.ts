// Helpers for the supervisor's tests (not a test file itself).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { detectCgroup, type CgroupFound } from './detect.js';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
export const MiB = 1024 * 1024;

/**
 * The detection for `version`, or null with a printed reason. In CI a missing v1 fails the
 * tests (the CI machine has it); a missing v2 may skip anywhere.
 */
export function cgroupFor(version: 1 | 2, quiet = false): { found: CgroupFound | null; why: string; skip: boolean } {
  const d = detectCgroup();
  const found = d.usable && d.version === version ? d : null;
  const why = found ? '' : d.usable ? `this machine's memory cgroup is v${d.version}, not v${version}` : d.reason;
  const mustRun = version === 1 && process.env.CI === 'true';
  const skip = found === null && !mustRun;
  if (skip && !quiet) console.warn(`skipping the cgroup v${version} supervisor tests: ${why}`);
  return { found, why, skip };
}

/**
 * The memory groups process `pid` made that are still there (a group is named for the process
 * that made it): other tests running beside this one make groups of their own.
 */
export function groupsMadeBy(pid: number | undefined): string[] {
  const d = detectCgroup();
  if (!d.usable || pid === undefined || !existsSync(d.ownDir)) return [];
  return readdirSync(d.ownDir).filter((n) => n.startsWith(`ramforge-${pid}-`));
}

/** Whether pid is a running process (a zombie waiting to be reaped counts as gone). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

export async function waitFor(pred: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (pred()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return pred();
}

export const gone = (dir: string) => !existsSync(dir);

/** A pid that just exited (its number is free until the kernel wraps around). */
export async function deadPid(): Promise<number> {
  const { spawn } = await import('node:child_process');
  const c = spawn('true', { stdio: 'ignore' });
  await new Promise((r) => c.once('exit', r));
  return c.pid!;
}
