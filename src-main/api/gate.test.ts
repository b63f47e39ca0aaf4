import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.js';
import { GenerationGate, QueueAbortedError } from './gate.js';

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('GenerationGate', () => {
  it('lets `capacity` in at once, queues the rest in order, refuses API requests past the queue', async () => {
    let changes = 0;
    const g = new GenerationGate(2, 1, () => changes++);
    const a = await g.enter({ limited: true });
    const b = await g.enter({ limited: true });
    const order: string[] = [];
    const c = g.enter({ limited: true }).then((leave) => (order.push('c'), leave));
    await expect(g.enter({ limited: true })).rejects.toMatchObject({ status: 429, code: 'queue_full' });
    expect(g.counts()).toEqual({ capacity: 2, active: 2, queued: 1, refused: 1, completed: 0 });
    a();
    a(); // leaving twice gives back one sequence only
    const leaveC = await c;
    expect(order).toEqual(['c']);
    expect(g.counts()).toMatchObject({ active: 2, queued: 0, completed: 1 });
    b();
    leaveC();
    expect(g.counts()).toMatchObject({ active: 0, completed: 3 });
    expect(changes).toBeGreaterThan(5);
  });

  it('each admitted generation holds the lowest free slot until it leaves (GET /slots reads them); a waiter gets the slot given back', async () => {
    const g = new GenerationGate(3, 4);
    expect(g.slots()).toEqual([false, false, false]);
    const a = await g.enter();
    const b = await g.enter();
    const c = await g.enter();
    const d = g.enter();
    b();
    b(); // leaving twice frees its slot once
    const leaveD = await d;
    expect(g.slots()).toEqual([true, true, true]);
    a();
    expect(g.slots()).toEqual([false, true, true]);
    c();
    leaveD();
    expect(g.slots()).toEqual([false, false, false]);
    g.setCapacity(2);
    expect(g.slots()).toEqual([false, false]);
  });

  it("the app's own chat waits past the queue limit, never refused", async () => {
    const g = new GenerationGate(1, 0);
    const a = await g.enter();
    await expect(g.enter({ limited: true })).rejects.toBeInstanceOf(ApiError);
    const ui = g.enter();
    expect(g.counts().queued).toBe(1);
    a();
    (await ui)();
    expect(g.counts()).toMatchObject({ active: 0, queued: 0 });
  });

  it('a waiter whose signal aborts leaves the queue at once; one aborted before asking never enters', async () => {
    const g = new GenerationGate(1, 4);
    const a = await g.enter();
    const ctl = new AbortController();
    const w = g.enter({ signal: ctl.signal, limited: true });
    const next = g.enter({ limited: true });
    expect(g.counts().queued).toBe(2);
    ctl.abort();
    await expect(w).rejects.toBeInstanceOf(QueueAbortedError);
    expect(g.counts().queued).toBe(1);
    a();
    (await next)();
    const done = new AbortController();
    done.abort();
    await expect(g.enter({ signal: done.signal })).rejects.toBeInstanceOf(QueueAbortedError);
    expect(g.counts()).toMatchObject({ active: 0, queued: 0 });
  });

  it('more sequences after a load let waiters in', async () => {
    const g = new GenerationGate(1, 4);
    await g.enter();
    let entered = 0;
    void g.enter().then(() => entered++);
    void g.enter().then(() => entered++);
    await tick();
    expect(entered).toBe(0);
    g.setCapacity(3);
    await tick();
    expect(entered).toBe(2);
  });
});
