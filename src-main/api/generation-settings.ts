// llama-server's `generation_settings` (its task parameters as JSON): what a generation runs
// with, under its names. /props shows the server's defaults in this shape
// (default_generation_settings.params), /completion each answer's own. Only what RAMforge applies
// is listed, with its real value; `logit_bias` lists the biases the sampler applied, as
// llama-server does ({bias, token}; -Infinity, a banned token, is JSON's null there too). Pure.
import type { LogitBias, SamplingParams } from '../shared/worker-protocol.js';

export interface SettingsInput {
  sampling: Omit<SamplingParams, 'grammar'> & { grammar?: string };
  /** null: no limit (llama-server's -1). */
  maxTokens: number | null;
  stream?: boolean;
  /** Most likely tokens reported per position (n_probs); 0: none. */
  nProbs?: number;
  /** The biases the sampler applied (GenerationResult.logitBias); absent: none. */
  logitBias?: LogitBias[];
  /** The probabilities reported are those after the samplers (post_sampling_probs). */
  postSamplingProbs?: boolean;
}

export function generationSettings(g: SettingsInput): Record<string, unknown> {
  const s = g.sampling;
  const n = g.maxTokens ?? -1;
  return {
    seed: s.seed,
    temperature: s.temperature,
    top_k: s.topK,
    top_p: s.topP,
    min_p: s.minP,
    repeat_last_n: s.repeatLastN,
    repeat_penalty: s.repeatPenalty,
    max_tokens: n,
    n_predict: n,
    stream: g.stream ?? false,
    n_probs: g.nProbs ?? 0,
    post_sampling_probs: g.postSamplingProbs ?? false,
    logit_bias: (g.logitBias ?? []).map((b) => ({ bias: b.bias, token: b.token })),
    ignore_eos: s.ignoreEos ?? false,
    grammar: s.grammar ?? '',
  };
}
