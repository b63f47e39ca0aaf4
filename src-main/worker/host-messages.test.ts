// The host checks every message from the worker: a malformed one is dropped and reported, never
// thrown inside the main process's message listener, and a request it answered fails with the reason.
import { describe, it, expect } from 'vitest';
import { WorkerHost, type WorkerProcess } from './host.js';
import type { WorkerExit, WorkerRequest } from '../shared/worker-protocol.js';

/** A worker process driven by the test: `deliver` is what the IPC channel would do with a message. */
function fakeProcess(): { proc: WorkerProcess; deliver: (m: unknown) => void; sent: WorkerRequest[]; end: () => void } {
  let listener: ((m: unknown) => void) | null = null;
  let end: (x: WorkerExit) => void = () => {};
  const sent: WorkerRequest[] = [];
  const proc: WorkerProcess = {
    send: (m) => void sent.push(m),
    onMessage: (fn) => void (listener = fn),
    exited: new Promise<WorkerExit>((r) => (end = r)),
    kill: () => end({ reason: 'killed', code: null, signal: 'SIGKILL', message: 'killed' }),
  };
  return { proc, deliver: (m) => listener?.(m), sent, end: () => proc.kill() };
}

async function started(): Promise<{ host: WorkerHost; f: ReturnType<typeof fakeProcess> }> {
  const f = fakeProcess();
  const p = WorkerHost.start({ spawn: () => f.proc });
  await new Promise((r) => setTimeout(r, 0));
  f.deliver({ type: 'ready', pid: 4242 });
  return { host: await p, f };
}

describe('WorkerHost and malformed worker messages', () => {
  it('drops malformed messages without throwing and reports each one', async () => {
    const { host, f } = await started();
    const reasons: string[] = [];
    host.on('bad-message', (r: string) => reasons.push(r));
    const junk: unknown[] = [null, 7, 'x', [], {}, { type: 'result', id: 'x' }, { type: 'token', id: 1 }, { type: 'sample', sample: null }, { type: 'progress', id: 1 }];
    for (const m of junk) expect(() => f.deliver(m)).not.toThrow();
    expect(reasons).toHaveLength(junk.length);
    expect(host.droppedMessages).toBe(junk.length);
    expect(host.pid).toBe(4242);
    expect(host.isAlive()).toBe(true);
    f.end();
  });

  it('fails the request a malformed result answered, and keeps serving good ones', async () => {
    const { host, f } = await started();
    host.on('bad-message', () => {});
    const tokens: unknown[] = [];
    const bad = host.generate({ prompt: 'x', maxTokens: 1, sampling: { temperature: 0, topK: 1, topP: 1, minP: 0, seed: 1, repeatPenalty: 1, repeatLastN: 64 } }, (t) => tokens.push(t));
    const id = (f.sent[0] as { id: number }).id;
    f.deliver({ type: 'token', id, token: { index: 0, tokenId: 1 } });
    f.deliver({ type: 'result', id, ok: false, error: { message: 'no code' } });
    await expect(bad).rejects.toMatchObject({ code: 'BAD_MESSAGE', message: expect.stringMatching(/malformed result/) });
    expect(tokens).toEqual([]);

    const good = host.probeDisk('/x', 1);
    const id2 = (f.sent[1] as { id: number }).id;
    f.deliver({ type: 'result', id: id2, ok: true, value: { bytes: 1, seconds: 1, direct: true } });
    await expect(good).resolves.toEqual({ bytes: 1, seconds: 1, direct: true });
    f.end();
  });

  it('without a listener, says so on stderr (bounded) instead of throwing', async () => {
    const { host, f } = await started();
    const lines: string[] = [];
    const orig = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((s: string) => (lines.push(String(s)), true)) as typeof process.stderr.write;
    try {
      for (let i = 0; i < 50; i++) f.deliver({ type: 'nope' });
    } finally {
      process.stderr.write = orig;
    }
    expect(host.droppedMessages).toBe(50);
    expect(lines.length).toBe(10);
    expect(lines[0]).toMatch(/dropped a malformed message from the inference worker: unknown message type 'nope'/);
    f.end();
  });
});
