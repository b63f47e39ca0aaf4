import { describe, expect, it } from 'vitest';
import { PROBE_BYTES, PROBE_CHUNK, PROBE_THREADS, probeRequest } from './disk-probe-request.js';

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
