// llama-server's `timings` object, as /completion answers it and its test suite reads it, from
// one generation's result. Prompt figures count the tokens decoded (those reused from the
// cache are cache_n); the generation rate is over the decode steps, the tokens after the first
// (which comes from the prompt's own logits). Pure.
import type { GenerationResult } from '../shared/worker-protocol.js';

export interface LlamaTimings {
  cache_n: number;
  prompt_n: number;
  prompt_ms: number;
  prompt_per_token_ms: number;
  prompt_per_second: number;
  predicted_n: number;
  predicted_ms: number;
  predicted_per_token_ms: number;
  predicted_per_second: number;
}

/** a / b, or 0 where b is 0 (llama-server sends no inf or nan). */
const ratio = (a: number, b: number): number => (b > 0 ? a / b : 0);

export function llamaTimings(r: Pick<GenerationResult, 'promptTokens' | 'tokens' | 'reusedTokens' | 'timings'>): LlamaTimings {
  const promptN = Math.max(0, r.promptTokens.length - r.reusedTokens);
  const steps = Math.max(0, r.tokens.length - 1);
  const { promptMs, decodeMs } = r.timings;
  return {
    cache_n: r.reusedTokens,
    prompt_n: promptN,
    prompt_ms: promptMs,
    prompt_per_token_ms: ratio(promptMs, promptN),
    prompt_per_second: ratio(promptN * 1000, promptMs),
    predicted_n: r.tokens.length,
    predicted_ms: decodeMs,
    predicted_per_token_ms: ratio(decodeMs, steps),
    predicted_per_second: ratio(steps * 1000, decodeMs),
  };
}
