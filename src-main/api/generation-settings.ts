// llama-server's `generation_settings` (its task parameters as JSON): what a generation runs
// with, under its names. /props shows the server's defaults in this shape
// (default_generation_settings.params), /completion each answer's own. Only what RAMforge applies
// is listed, with its real value: no token biases are applied, so `logit_bias` is empty. Pure.
import type { SamplingParams } from '../shared/worker-protocol.js';

export interface SettingsInput {
  sampling: Omit<SamplingParams, 'grammar'> & { grammar?: string };
  /** null: no limit (llama-server's -1). */
  maxTokens: number | null;
  stream?: boolean;
  /** Most likely tokens reported per position (n_probs); 0: none. */
  nProbs?: number;
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
    logit_bias: [],
    ignore_eos: false,
    grammar: s.grammar ?? '',
  };
}
