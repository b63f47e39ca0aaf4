// The GPU check's token agreement (scripts/gpu-agreement.mjs): of the argmax after every prefix,
// only the positions that predict a generated token count — the last prompt position up to the
// one before the end — each once, so one token the device rounds differently is one miss.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the repository's scripts, without type declarations
import { agreementOf, MIN_AGREEMENT } from '../../scripts/gpu-agreement.mjs';

describe("the GPU check's token agreement", () => {
  it('counts the positions after the prompt, each once; the prompt and the last argmax are not compared', () => {
    // A 3-token prompt and 4 generated tokens: argmax[2..5] predict tokens 3..6.
    const cpu = [9, 9, 1, 2, 3, 4, 7];
    expect(agreementOf(cpu, [0, 0, 1, 2, 3, 4, 0], 3)).toEqual({ positions: 4, same: 4 });
    expect(agreementOf(cpu, [9, 9, 1, 5, 3, 4, 7], 3)).toEqual({ positions: 4, same: 3 });
    expect(MIN_AGREEMENT).toBe(0.9);
  });
});
