import { describe, it, expect } from 'vitest';
import { checkWorkerEvent } from './worker-message-check.js';

const sample = {
  tMs: 1,
  token: 0,
  phase: 'decode',
  layerResident: [1, null],
  persistentResident: null,
  rssBytes: 10,
  cgroupBytes: null,
  cgroupLimitBytes: null,
  limitHits: null,
  pinnedResident: null,
  pinnedBytes: null,
  readBytes: 0,
  majorFaults: 0,
  decodeTokS: null,
  events: [{ tMs: 1, kind: 'drop', layer: 0, bytes: 4096 }],
};

const good: unknown[] = [
  { type: 'ready', pid: 123 },
  { type: 'progress', id: 1, fraction: 0.5 },
  { type: 'token', id: 2, token: { index: 0, tokenId: 7, text: 'hi', tMs: 3.5 } },
  { type: 'sample', sample },
  { type: 'serve-step', step: { sequences: 2, tokens: 40, decoded: 2, ms: 12.5 } },
  { type: 'result', id: 3, ok: true, value: null },
  { type: 'result', id: 3, ok: false, error: { code: 'LOAD_FAILED', message: 'bad file' } },
];

describe('checkWorkerEvent', () => {
  it('accepts every message the protocol allows', () => {
    for (const m of good) expect(checkWorkerEvent(m), JSON.stringify(m)).toMatchObject({ ok: true, event: m });
  });

  it('refuses non-objects, unknown types and wrong field types, with a reason', () => {
    const bad: unknown[] = [
      null,
      undefined,
      42,
      'ready',
      [],
      {},
      { type: 'boom' },
      { type: 7 },
      { type: 'ready' },
      { type: 'ready', pid: -1 },
      { type: 'ready', pid: 1.5 },
      { type: 'progress', id: 1, fraction: Number.NaN },
      { type: 'progress', id: 1, fraction: 2 },
      { type: 'progress', id: '1', fraction: 0.1 },
      { type: 'token', id: 1 },
      { type: 'token', id: 1, token: { index: 0, tokenId: 7, text: 5, tMs: 1 } },
      { type: 'token', id: 1, token: { index: 0, tokenId: 7, text: 'x'.repeat((1 << 20) + 1), tMs: 1 } },
      { type: 'token', id: 0, token: { index: 0, tokenId: 7, text: 'x', tMs: 1 } },
      { type: 'sample' },
      { type: 'sample', sample: { ...sample, phase: 'warp' } },
      { type: 'sample', sample: { ...sample, layerResident: 'all' } },
      { type: 'sample', sample: { ...sample, layerResident: [1, 'x'] } },
      { type: 'sample', sample: { ...sample, rssBytes: Infinity } },
      { type: 'sample', sample: { ...sample, events: [{ tMs: 1, kind: 'explode', layer: 0, bytes: 1 }] } },
      { type: 'sample', sample: { ...sample, events: [{ tMs: 1, kind: 'drop', layer: 0, bytes: 1, durMs: 'x' }] } },
      { type: 'serve-step' },
      { type: 'serve-step', step: { sequences: 2, tokens: 40, decoded: -1, ms: 1 } },
      { type: 'serve-step', step: { sequences: '2', tokens: 40, decoded: 2, ms: 1 } },
      { type: 'result', ok: true, value: 1 },
      { type: 'result', id: 1, ok: true },
      { type: 'result', id: 1, ok: 'yes', value: 1 },
      { type: 'result', id: 1, ok: false },
      { type: 'result', id: 1, ok: false, error: { message: 'no code' } },
      { type: 'result', id: 1, ok: false, error: 'text' },
    ];
    for (const m of bad) {
      const r = checkWorkerEvent(m);
      expect(r.ok, JSON.stringify(m)?.slice(0, 200)).toBe(false);
      if (!r.ok) expect(r.reason.length).toBeGreaterThan(5);
    }
  });

  it('names the request a malformed result answered', () => {
    expect(checkWorkerEvent({ type: 'result', id: 9, ok: false, error: {} })).toMatchObject({ ok: false, resultId: 9 });
    expect(checkWorkerEvent({ type: 'result', id: -9, ok: false })).not.toHaveProperty('resultId');
  });

  it('never throws, whatever arrives (getters, prototypes, deep values)', () => {
    const nasty: unknown[] = [
      Object.create(null),
      { type: 'result', id: 1, ok: true, value: { get x() { throw new Error('getter'); } } },
      Object.defineProperty({ type: 'ready' }, 'pid', { get: () => { throw new Error('getter'); } }),
      { type: '__proto__' },
      { type: 'toString' },
      new Map([['type', 'ready']]),
    ];
    const results = nasty.map((m) => checkWorkerEvent(m));
    expect(results.map((r) => r.ok)).toEqual([false, true, false, false, false, false]);
  });
});
