// What an OpenAI, llama-server or Anthropic request gets for a sampling field it does not set:
// the server's own default where the user gave one (`serve --temp …`, the app's API setting),
// else OpenAI's (temperature 1, top_p 1, llama.cpp's extra samplers off, a random seed, no token
// limit). Pure.
import type { ApiSamplingDefaults } from '../shared/api-defaults.js';
import type { SamplingParams } from '../shared/worker-protocol.js';

export interface GenerationDefaults {
  sampling: Omit<SamplingParams, 'grammar'>;
  /** null: until the sequence's context is full. */
  maxTokens: number | null;
}

/** The worker's "random seed". */
export const RANDOM_SEED = 0xffffffff;

export const OPENAI_DEFAULTS: GenerationDefaults = {
  sampling: { temperature: 1, topP: 1, topK: 0, minP: 0, repeatPenalty: 1, repeatLastN: 64, seed: RANDOM_SEED },
  maxTokens: null,
};

/** The server's defaults laid over a dialect's own. */
export function generationDefaults(server: ApiSamplingDefaults | undefined, base: GenerationDefaults = OPENAI_DEFAULTS): GenerationDefaults {
  const { maxTokens, ...sampling } = server ?? {};
  return { sampling: { ...base.sampling, ...sampling }, maxTokens: maxTokens ?? base.maxTokens };
}
