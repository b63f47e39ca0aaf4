// Killing the processes of a group, waiting for it to empty, and removing it.
import { readFileSync, rmdirSync } from 'node:fs';
import { countSwapAreas } from '../shared/cgroup/control-files.js';
import type { MemoryGroup } from './group.js';

export function killPids(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
    }
  }
}

export function systemHasSwap(): boolean {
  try {
    return countSwapAreas(readFileSync('/proc/swaps', 'utf8')) > 0;
  } catch {
    return true; // unknown: assume swap may exist, so swap figures are not claimed to be 0
  }
}

const sleepBuf = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(sleepBuf, 0, 0, ms);
}
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface RemoveResult {
  removed: boolean;
  /** Why the group is still there, when removed is false. */
  reason: string | null;
}

function tryRmdir(g: MemoryGroup): RemoveResult | null {
  try {
    rmdirSync(g.dir);
    return { removed: true, reason: null };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { removed: true, reason: null };
    if (code === 'EBUSY') return null; // still populated: retry
    return { removed: false, reason: `rmdir ${g.dir}: ${(e as Error).message}` };
  }
}

/**
 * Kill everything in the group, wait until cgroup.procs is empty, rmdir it. Bounded: gives up
 * after `timeoutMs` and says why. Async: used on every normal path.
 */
export async function killAndRemove(g: MemoryGroup, timeoutMs = 5000): Promise<RemoveResult> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { done, pids } = killRound(g);
    if (done) return done;
    if (Date.now() > until) {
      return { removed: false, reason: `${g.dir} still holds processes ${pids.join(',') || '(none listed, rmdir says busy)'} after ${timeoutMs} ms` };
    }
    await sleep(pids.length > 0 ? 10 : 25);
  }
}

/** The same, blocking: for signal and exit handlers, where nothing async runs any more. */
export function killAndRemoveSync(g: MemoryGroup, timeoutMs = 3000): RemoveResult {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { done } = killRound(g);
    if (done) return done;
    if (Date.now() > until) return { removed: false, reason: `${g.dir} still busy after ${timeoutMs} ms` };
    sleepSync(10);
  }
}

/** One round: kill what is left in the group; once it is empty, try to remove it. */
function killRound(g: MemoryGroup): { done: RemoveResult | null; pids: number[] } {
  let pids: number[] = [];
  try {
    pids = g.procs();
    if (pids.length > 0) g.killAll();
  } catch {
    /* the group may be gone already: rmdir decides */
  }
  return { done: pids.length === 0 ? tryRmdir(g) : null, pids };
}

