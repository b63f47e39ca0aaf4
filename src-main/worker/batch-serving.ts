// Several requests decoded together (parallel > 1) through the native batch server: each joins
// the next weight pass and leaves when done. Opened on the first request, closed with the
// context; the residency timeline is busy from the first request in flight to the last.
import type { GenerateParams, GenerationResult, TokenEvent } from '../shared/worker-protocol.js';
import type { NativeContext, NativeServeEvent } from '../native/addon.js';
import type { ResidencyRuntime } from './residency-runtime.js';
import { WorkerError, codeOf } from './worker-error.js';
import { timingsOf } from './generation-timings.js';
import { promptLogprobsOf, type LogprobsWithBytes } from './token-logprobs.js';

export type ServeStepEvent = Extract<NativeServeEvent, { type: 'step' }>;

export class BatchServing {
  /** The batch server's requests by its own id; the host's request ids map onto them. */
  private readonly requests = new Map<number, { onEvent: (e: NativeServeEvent) => void }>();
  private readonly requestIds = new Map<number, number>();
  private inFlight = 0;
  private tokensServed = 0;

  constructor(
    private readonly ctx: NativeContext,
    private readonly residency: ResidencyRuntime | null,
    onStep: (e: ServeStepEvent) => void,
  ) {
    ctx.serveOpen((e) => {
      if (e.type === 'step') onStep(e);
      else this.requests.get(e.id)?.onEvent(e);
    });
  }

  async submit(prompt: number[], params: GenerateParams, onToken: (t: TokenEvent) => void, withBytes: LogprobsWithBytes, requestId?: number): Promise<GenerationResult> {
    const decoder = new TextDecoder('utf-8');
    let text = '';
    let id = -1;
    if (this.inFlight++ === 0) this.residency?.beginGeneration();
    const done = new Promise<Extract<NativeServeEvent, { type: 'done' }>>((resolve, reject) => {
      const onEvent = (e: NativeServeEvent) => {
        if (e.type === 'token') {
          const delta = decoder.decode(e.piece, { stream: true });
          text += delta;
          this.tokensServed++;
          this.residency?.onToken(this.tokensServed, e.tMs, false);
          onToken({ index: e.index, tokenId: e.token, text: delta, tMs: e.tMs, ...(e.logprobs ? { logprobs: withBytes(e.logprobs) } : {}) });
        } else if (e.type === 'done') resolve(e);
        else if (e.type === 'error') reject(new WorkerError('DECODE_FAILED', e.message));
      };
      try {
        id = this.ctx.serveSubmit(prompt, {
          maxTokens: params.maxTokens,
          ...params.sampling,
          ...(params.logprobs !== undefined ? { logprobs: params.logprobs } : {}),
          ...(params.promptLogprobs ? { promptLogprobs: true } : {}),
          ...(params.postSamplingProbs ? { postSamplingProbs: true } : {}),
        });
      } catch (e) {
        reject(new WorkerError(codeOf(e, 'BAD_ARGUMENT'), (e as Error).message));
        return;
      }
      this.requests.set(id, { onEvent });
      if (requestId !== undefined) this.requestIds.set(requestId, id);
    });
    try {
      const r = await done;
      text += decoder.decode();
      const promptLogprobs = r.promptLogprobs ? { promptLogprobs: promptLogprobsOf(prompt, r.promptLogprobs, withBytes) } : {};
      return { promptTokens: prompt, tokens: r.tokens, text, stopReason: r.stopReason, reusedTokens: 0, timings: timingsOf(r, prompt.length), ...promptLogprobs };
    } finally {
      this.requests.delete(id);
      if (requestId !== undefined) this.requestIds.delete(requestId);
      if (--this.inFlight === 0) this.residency?.endGeneration();
    }
  }

  /** Cancels one request (by the host's request id), or every request. */
  cancel(requestId?: number): void {
    if (requestId === undefined) {
      for (const id of this.requests.keys()) this.ctx.serveCancel(id);
      return;
    }
    const id = this.requestIds.get(requestId);
    if (id !== undefined) this.ctx.serveCancel(id);
  }

  close(): void {
    this.ctx.serveClose();
  }
}
