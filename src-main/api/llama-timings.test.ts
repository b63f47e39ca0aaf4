import { describe, expect, it } from 'vitest';
import { llamaTimings } from './llama-timings.js';

const run = (prompt: number, reused: number, tokens: number, promptMs: number, decodeMs: number) => ({
  promptTokens: Array.from({ length: prompt }, (_, i) => i),
  tokens: Array.from({ length: tokens }, (_, i) => i),
  reusedTokens: reused,
  timings: { promptMs, ttftMs: promptMs, decodeMs, promptTokS: 0, decodeTokS: 0, perTokenMs: [] },
});

describe('llamaTimings', () => {
  it("gives llama-server's fields: prompt figures over the tokens decoded (the cached ones are cache_n), the rate over the decode steps after the first token", () => {
    expect(llamaTimings(run(10, 4, 16, 30, 150))).toEqual({
      cache_n: 4,
      prompt_n: 6,
      prompt_ms: 30,
      prompt_per_token_ms: 5,
      prompt_per_second: 200,
      predicted_n: 16,
      predicted_ms: 150,
      predicted_per_token_ms: 10,
      predicted_per_second: 100,
    });
  });

  it('one generated token made no decode step: its rate and per-token time are 0, never inf or nan', () => {
    const t = llamaTimings(run(3, 3, 1, 0, 0));
    expect(t).toMatchObject({ prompt_n: 0, prompt_per_token_ms: 0, prompt_per_second: 0, predicted_n: 1, predicted_per_token_ms: 0, predicted_per_second: 0 });
  });
});
