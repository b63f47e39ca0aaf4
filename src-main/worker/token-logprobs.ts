// The native log-probabilities (token ids) with each token's bytes, which the API turns into
// the text and `bytes` its clients show; a token's bytes are looked up once per request.
import type { PositionLogprobs, PromptLogprobs, TokenLogprob } from '../shared/worker-protocol.js';
import type { NativeLogprobs, NativeModel } from '../native/addon.js';

export type LogprobsWithBytes = (n: NativeLogprobs) => PositionLogprobs;

/** The prompt's log-probabilities (positions 1..n-1 from the native side) with its first token's bytes. */
export function promptLogprobsOf(prompt: number[], positions: NativeLogprobs[], withBytes: LogprobsWithBytes): PromptLogprobs {
  const first = prompt.length > 0 ? withBytes({ id: prompt[0] as number, logprob: 0, top: [] }).bytes : [];
  return { firstBytes: first, positions: positions.map(withBytes) };
}

export function logprobsWithBytes(model: Pick<NativeModel, 'tokenToPiece'>): LogprobsWithBytes {
  const bytes = new Map<number, number[]>();
  const of = (id: number, logprob: number): TokenLogprob => {
    let b = bytes.get(id);
    if (!b) bytes.set(id, (b = Array.from(model.tokenToPiece(id, false))));
    return { id, bytes: b, logprob };
  };
  return (n) => ({ ...of(n.id, n.logprob), top: n.top.map((t) => of(t.id, t.logprob)) });
}
