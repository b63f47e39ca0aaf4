// One request at a time on the engine's context (parallel 1): the prompt's cached prefix from
// the previous turn reused, tokens streamed as the native loop emits them, a draft model's
// passes reported with their tokens.
import type { GenerateParams, GenerationResult, TokenEvent } from '../shared/worker-protocol.js';
import type { NativeContext } from '../native/addon.js';
import type { ResidencyRuntime } from './residency-runtime.js';
import { WorkerError, codeOf } from './worker-error.js';
import { timingsOf } from './generation-timings.js';
import { promptLogprobsOf, type LogprobsWithBytes } from './token-logprobs.js';

export async function generateSolo(ctx: NativeContext, residency: ResidencyRuntime | null, prompt: number[], params: GenerateParams, onToken: (t: TokenEvent) => void, withBytes: LogprobsWithBytes): Promise<GenerationResult> {
  const decoder = new TextDecoder('utf-8');
  let text = '';
  let delivered = 0;
  // The native promise can settle before the thread-safe function has delivered the last
  // tokens: the result waits for them (each token callback checks whether it was the last).
  let expected = Infinity;
  let allDelivered: () => void = () => {};
  const tokensIn = new Promise<void>((res) => (allDelivered = res));
  residency?.beginGeneration();
  const s = params.sampling;
  let r;
  try {
    r = await ctx.generate(
      prompt,
      {
        maxTokens: params.maxTokens,
        temperature: s.temperature,
        topK: s.topK,
        topP: s.topP,
        minP: s.minP,
        seed: s.seed,
        repeatPenalty: s.repeatPenalty,
        repeatLastN: s.repeatLastN,
        ...(s.grammar !== undefined ? { grammar: s.grammar } : {}),
        ...(s.logitBias !== undefined ? { logitBias: s.logitBias } : {}),
        ...(params.logprobs !== undefined ? { logprobs: params.logprobs } : {}),
        ...(params.promptLogprobs ? { promptLogprobs: true } : {}),
        ...(params.postSamplingProbs ? { postSamplingProbs: true } : {}),
      },
      (index, id, piece, tMs, pass, logprobs) => {
        // Bytes of a UTF-8 character split across tokens are held until it is complete.
        const delta = decoder.decode(piece, { stream: true });
        text += delta;
        delivered++;
        residency?.onToken(index + 1, tMs, index <= 1);
        const t: TokenEvent = { index, tokenId: id, text: delta, tMs };
        if (pass) t.pass = { drafted: pass.drafted, accepted: pass.accepted };
        if (logprobs) t.logprobs = withBytes(logprobs);
        onToken(t);
        if (delivered >= expected) allDelivered();
      },
    );
  } catch (e) {
    throw new WorkerError(codeOf(e, 'DECODE_FAILED'), (e as Error).message);
  }
  expected = r.tokens.length;
  // Bounded: a lost callback must not hang the worker (the text would then miss a piece).
  if (delivered < expected) await Promise.race([tokensIn, new Promise((res) => setTimeout(res, 5000).unref())]);
  const tail = decoder.decode();
  text += tail;
  residency?.endGeneration();
  return {
    promptTokens: prompt,
    tokens: r.tokens,
    text,
    stopReason: r.stopReason,
    reusedTokens: r.reusedTokens,
    decodes: r.decodes,
    timings: timingsOf(r, prompt.length - r.reusedTokens),
    ...(r.promptLogprobs ? { promptLogprobs: promptLogprobsOf(prompt, r.promptLogprobs, withBytes) } : {}),
    ...(r.draft ? { draft: r.draft } : {}),
  };
}
