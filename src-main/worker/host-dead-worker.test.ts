// Messages sent to a worker that has just died (killed from outside, before the host has seen
// its exit) must not throw in the host's process: the write fails (EPIPE), the exit is
// reported as the worker's end, and the host's process carries on.
import { describe, expect, it } from 'vitest';
import { WorkerHost } from './host.js';

describe('a worker killed while the host talks to it', () => {
  it('sends to the dead worker fail quietly; its exit is reported as a kill', async () => {
    const host = await WorkerHost.start();
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown): void => void uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      process.kill(host.pid, 'SIGKILL');
      // The host has not seen the exit yet: every send goes to a closed pipe.
      const until = Date.now() + 2000;
      while (host.isAlive() && Date.now() < until) {
        host.cancel();
        await new Promise((r) => setImmediate(r));
      }
      const exit = await host.exited;
      expect(exit.reason).toBe('killed');
      expect(exit.signal).toBe('SIGKILL');
      await new Promise((r) => setTimeout(r, 50));
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
