// The worker's on-demand collection really collects: an object only a WeakRef holds is gone
// after it, in a process started without --expose-gc.
import { describe, expect, it } from 'vitest';
import { collectGarbage } from './collect-garbage.js';

describe('collectGarbage', () => {
  it('frees an unreachable object without --expose-gc on the command line', async () => {
    expect(process.execArgv).not.toContain('--expose-gc');
    let ref: WeakRef<object> | null = null;
    (() => {
      ref = new WeakRef({ payload: new Array(1e5).fill(1) });
    })();
    // A WeakRef's target survives until the end of the current job: collect in a later one.
    await new Promise((r) => setTimeout(r, 0));
    collectGarbage();
    expect(ref!.deref()).toBeUndefined();
    // Twice is fine (the flag is set once).
    collectGarbage();
  });
});
