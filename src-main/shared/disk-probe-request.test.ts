import { describe, expect, it } from 'vitest';
import { PROBE_BYTES, PROBE_CHUNK, PROBE_THREADS, expertReadChunk, probeRequest } from './disk-probe-request.js';
import { headerOnlyView } from './gguf/tiny-models.test-util.js';

describe('what the device probe reads', () => {
  it('a large file: 512 MiB in 2 MiB requests, 8 in flight, scattered over the file', () => {
    expect(probeRequest(17.2e9)).toEqual({ bytes: PROBE_BYTES, chunkBytes: PROBE_CHUNK, threads: PROBE_THREADS, scatter: true });
  });

  it('a smaller file: a quarter of it in whole chunks (reading it whole would measure the host’s cache of it)', () => {
    const r = probeRequest(300 * 1024 * 1024 + 5);
    expect(r?.bytes).toBe(37 * PROBE_CHUNK);
    expect(r!.bytes % PROBE_CHUNK).toBe(0);
  });

  it('a file of fewer chunks than requests in flight is not probed', () => {
    expect(probeRequest(PROBE_THREADS * PROBE_CHUNK - 1)).toBeNull();
    expect(probeRequest(1000)).toBeNull();
  });
});

describe('expertReadChunk', () => {
  it("is one expert's slice of the largest expert tensor, in whole 4 KiB; none without experts", () => {
    const moe = headerOnlyView({ arch: 'llama', layers: 4, embd: 1024, heads: 16, kvHeads: 4, ff: 2816, vocab: 32000, matType: 2, experts: { count: 16, used: 2, skew: 0.35 } });
    const expertTensors = new Set(moe.moe!.layers.flatMap((l) => l.expertTensors));
    const largest = Math.max(...moe.tensors.filter((t) => expertTensors.has(t.name)).map((t) => t.nbytes));
    const chunk = expertReadChunk(moe)!;
    expect(chunk % 4096).toBe(0);
    expect(chunk).toBeGreaterThanOrEqual(largest / 16);
    expect(chunk - largest / 16).toBeLessThan(4096);
    expect(expertReadChunk(headerOnlyView({ arch: 'llama', layers: 4, embd: 1024, heads: 16, kvHeads: 4, ff: 2816, vocab: 32000, matType: 2 }))).toBeNull();
    // A probe at that size reads whole chunks, in whole 2 MiB.
    const p = probeRequest(17.2e9, chunk)!;
    expect(p.chunkBytes).toBe(chunk);
    expect(p.bytes % PROBE_CHUNK).toBe(0);
    expect(p.bytes).toBeLessThanOrEqual(PROBE_BYTES);
  });
});
