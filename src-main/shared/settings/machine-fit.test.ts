import { describe, expect, it } from 'vitest';
import { machineFitError } from './machine-fit.js';

const GiB = 1024 ** 3;
const plan = (kv: number, compute: number, parallel = 1) => ({
  input: { ctx: 4096, parallel },
  quantities: { kvRamBytes: { value: kv }, computeBufferBytes: { value: compute } },
}) as unknown as Parameters<typeof machineFitError>[0];

describe('machineFitError', () => {
  it('passes a run whose KV cache and compute buffer fit the machine', () => {
    expect(machineFitError(plan(2 * GiB, 1 * GiB), 16 * GiB)).toBeNull();
    expect(machineFitError(plan(15 * GiB, 1 * GiB), 16 * GiB)).toBeNull();
  });
  it('names the figures when they do not', () => {
    expect(machineFitError(plan(20 * GiB, 1 * GiB, 4), 16 * GiB)).toMatch(/^a context of 4096 tokens for each of 4 sequences needs 20\.0 GiB of KV cache and 1\.0 GiB of compute buffer, more than this machine's 16\.0 GiB/);
  });
  it('treats figures the plan lacks as unknown, not as a refusal', () => {
    expect(machineFitError({ input: { ctx: 1 }, quantities: {} } as unknown as Parameters<typeof machineFitError>[0], 1)).toBeNull();
  });
});
