// If the supervisor itself is told to stop (SIGTERM, SIGINT, SIGHUP) or exits while groups are
// live, kill every worker group and remove it first. Installed while at least one group lives.
import type { MemoryGroup } from './group.js';
import { killAndRemoveSync } from './procs.js';

const SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
type Sig = (typeof SIGNALS)[number];

const live = new Set<MemoryGroup>();
let installed = false;

function cleanupAll(): void {
  for (const g of live) killAndRemoveSync(g);
  live.clear();
}

function onExit(): void {
  cleanupAll();
}

function onSignal(sig: Sig): void {
  cleanupAll();
  uninstall();
  // Re-raise so the parent sees "killed by SIGx" (shell status 128+n), unless someone else
  // also listens for it: then that listener owns the shutdown.
  if (process.listenerCount(sig) === 0) {
    process.kill(process.pid, sig);
    // Should the default action not end us (it always does for these), exit the same way.
    setTimeout(() => process.exit(128 + (sig === 'SIGINT' ? 2 : sig === 'SIGHUP' ? 1 : 15)), 1000);
  }
}

const handlers = new Map<Sig, () => void>(SIGNALS.map((s) => [s, () => onSignal(s)]));

function install(): void {
  if (installed) return;
  installed = true;
  for (const [s, h] of handlers) process.on(s, h);
  process.on('exit', onExit);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  for (const [s, h] of handlers) process.off(s, h);
  process.off('exit', onExit);
}

/** Track a live group; `handleSignals: false` callers (an app with its own shutdown) skip the handlers. */
export function trackGroup(g: MemoryGroup, handleSignals: boolean): void {
  live.add(g);
  if (handleSignals) install();
}

export function untrackGroup(g: MemoryGroup): void {
  live.delete(g);
  if (live.size === 0) uninstall();
}

/** For an app's own shutdown path: kill and remove every live group now (blocking). */
export function cleanupAllGroupsSync(): void {
  cleanupAll();
}
