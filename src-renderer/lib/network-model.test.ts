import { describe, expect, it } from 'vitest';
import { networkView } from './network-model.js';
import type { ResidencySample } from '../../src-main/shared/residency-types.js';
import { sample as base } from './sample.test-util.js';

const sample = (phase: ResidencySample['phase'], token: number, nodes: [number, number, number][]): ResidencySample =>
  base({ tMs: token * 100, token, phase, network: { nodes: nodes.map(([bytesSent, bytesReceived, waitMs], i) => ({ endpoint: `10.0.0.${i + 1}:50052`, bytesSent, bytesReceived, waitMs })) } });

describe('networkView', () => {
  it('per decoded token, from the first decode sample to the newest; the load does not count', () => {
    const v = networkView([
      sample('load', 0, [
        [100e6, 0, 0],
        [90e6, 0, 0],
      ]),
      sample('decode', 1, [
        [100e6 + 1000, 400, 5],
        [90e6 + 2000, 128000, 9],
      ]),
      sample('decode', 11, [
        [100e6 + 11000, 4400, 55],
        [90e6 + 22000, 1408000, 109],
      ]),
    ]);
    expect(v?.tokens).toBe(10);
    expect(v?.nodes.map((n) => [n.endpoint, n.sentPerToken, n.receivedPerToken, n.waitMsPerToken])).toEqual([
      ['10.0.0.1:50052', 1000, 400, 5],
      ['10.0.0.2:50052', 2000, 128000, 10],
    ]);
    expect(v?.bytesPerToken).toBe(1000 + 400 + 2000 + 128000);
    expect(v?.waitMsPerToken).toBe(15);
    expect(v?.nodes[0]?.sent).toBe(100e6 + 11000);
  });

  it('no network in the samples (no --rpc): nothing to show; one decode sample: per-token figures unknown', () => {
    expect(networkView([{ ...sample('decode', 1, []), network: undefined } as ResidencySample])).toBeNull();
    const one = networkView([sample('decode', 1, [[5, 5, 5]])]);
    expect(one?.nodes[0]?.sentPerToken).toBeNull();
    expect(one?.bytesPerToken).toBeNull();
  });
});
