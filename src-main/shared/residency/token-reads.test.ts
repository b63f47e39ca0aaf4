import { describe, expect, it } from 'vitest';
import { slowestToken, tokenReads } from './token-reads.js';
import { sample } from '../../../src-renderer/lib/sample.test-util.js';
import type { ResidencyEvent } from '../residency-types.js';

const ev = (kind: ResidencyEvent['kind'], layer: number, bytes: number, durMs?: number): ResidencyEvent => ({ tMs: 0, kind, layer, bytes, ...(durMs !== undefined ? { durMs } : {}) });

describe('per-token reads', () => {
  it('names the layers each token read from storage and how long decode waited on each, and points at the slowest token', () => {
    const samples = [
      sample({ phase: 'prompt', token: 0, tMs: 0 }),
      sample({ token: 1, tMs: 100, events: [ev('prefetch', 3, 1000)] }),
      sample({ token: 2, tMs: 130, events: [ev('prefetch', 3, 1000), ev('prefetch', 4, 500)] }),
      // A token that waited: layer 4's read was late, layer 3's stalled.
      sample({ token: 3, tMs: 300, events: [ev('prefetch', 3, 1000), ev('late', 4, 0, 120), ev('stall', 3, 0, 15), ev('prefetch', 4, 500)] }),
      // Two tokens in one sample: one entry for both.
      sample({ token: 5, tMs: 360, events: [ev('prefetch', 3, 2000)] }),
      sample({ phase: 'idle', token: 5, tMs: 361 }),
    ];
    const entries = tokenReads(samples);
    expect(entries.map((e) => [e.fromToken, e.toToken])).toEqual([[0, 1], [1, 2], [2, 3], [3, 5]]);
    expect(entries[1]!.layers).toEqual([
      { layer: 3, readBytes: 1000, waitMs: 0 },
      { layer: 4, readBytes: 500, waitMs: 0 },
    ]);
    expect(entries[2]!.layers).toEqual([
      { layer: 4, readBytes: 500, waitMs: 120 },
      { layer: 3, readBytes: 1000, waitMs: 15 },
    ]);
    expect(entries[2]!.waitMs).toBe(135);
    expect(entries[3]!.readBytes).toBe(2000);
    // Token 3 took 170 ms; tokens 4–5 30 ms each, the first token (with the prompt) 100 ms.
    expect(slowestToken(entries)?.toToken).toBe(3);
    // The first token carries the prompt's pass: never the slowest beside decoded ones.
    expect(slowestToken([{ ...entries[0]!, ms: 5000 }, ...entries.slice(1)])?.toToken).toBe(3);
  });

  it('counts the expert cache’s reads in those tokens beside the layers’ waits on it', () => {
    const x = (readBytes: number) => ({ routed: 0, hits: 0, prefetchHits: 0, loads: 0, prefetches: 0, readBytes, ioBusyMs: 0, stalls: 0, stallMs: 0, predicted: 0, predictedRight: 0, staged: 0, prefetchDropped: 0, prefetchWastedBytes: 0, predictions: 0, predictionsIssued: 0, repackedProjections: 0, promoted: 0, skipped: 0, skippedWeight: 0, warmed: 0, deviceHits: 0, uploads: 0, uploadBytes: 0, resident: [] });
    const [e] = tokenReads([sample({ phase: 'prompt', experts: x(1000) }), sample({ token: 1, tMs: 40, experts: x(1600), events: [ev('stall', 2, 0, 9)] })]);
    expect(e).toMatchObject({ readBytes: 600, expertReadBytes: 600, waitMs: 9, layers: [{ layer: 2, readBytes: 0, waitMs: 9 }] });
  });

  it('gives each RPC node the time waited on it in those tokens, not since the start', () => {
    const net = (waitMs: number) => ({ nodes: [{ endpoint: '127.0.0.1:50052', bytesSent: 0, bytesReceived: 0, waitMs }] });
    const entries = tokenReads([sample({ phase: 'prompt', network: net(40) }), sample({ token: 1, tMs: 50, network: net(55) }), sample({ token: 2, tMs: 80, network: net(75) })]);
    expect(entries.map((e) => e.nodes[0]!.waitMs)).toEqual([15, 20]);
  });
});
