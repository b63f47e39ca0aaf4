// The token biases a generation's sampler applies: the request's own (each id checked against the
// vocabulary, which only the worker knows: llama.cpp would read past its candidates; each text
// tokenized as plain text, as llama-server reads logit_bias's strings), and with ignoreEos every
// end-of-generation token of the vocabulary at -Infinity, as llama-server's ignore_eos adds them.
// The list goes to the native sampler and back to the API, which shows it (llama-server's
// generation_settings.logit_bias).
import type { LogitBias, SamplingParams } from '../shared/worker-protocol.js';
import type { NativeModel } from '../native/addon.js';
import { WorkerError } from './worker-error.js';

type Vocab = Pick<NativeModel, 'info' | 'isEog' | 'tokenize'>;

/** Per model: its end-of-generation tokens (a scan of the vocabulary, done once). */
const eogOf = new WeakMap<Vocab, number[]>();

export function eogTokens(model: Vocab): number[] {
  let ids = eogOf.get(model);
  if (!ids) {
    ids = [];
    const n = model.info().nVocab;
    for (let t = 0; t < n; t++) if (model.isEog(t)) ids.push(t);
    eogOf.set(model, ids);
  }
  return ids;
}

/** The sampling as the native sampler gets it (`ignoreEos` resolved into the biases), and the biases it applies. */
export function samplingWithBias(s: SamplingParams, model: Vocab): { sampling: SamplingParams; bias: LogitBias[] } {
  const { ignoreEos, logitBias, ...rest } = s;
  const n = model.info().nVocab;
  const bias: LogitBias[] = [];
  for (const b of logitBias ?? []) {
    if ('text' in b) {
      for (const token of model.tokenize(b.text, false, false)) bias.push({ token, bias: b.bias });
      continue;
    }
    if (!Number.isInteger(b.token) || b.token < 0 || b.token >= n) throw new WorkerError('BAD_ARGUMENT', `logit_bias: ${b.token} is not a token id of this model (0 to ${n - 1})`);
    bias.push(b);
  }
  if (ignoreEos) for (const token of eogTokens(model)) bias.push({ token, bias: -Infinity });
  return { sampling: bias.length > 0 ? { ...rest, logitBias: bias } : rest, bias };
}
