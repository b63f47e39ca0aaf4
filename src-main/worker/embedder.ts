// Embeddings for the loaded model: a second context on the same weights, made on the first
// request (generation never pays for it) with embeddings on and mean pooling, as llama-server's
// /v1/embeddings. Each text is decoded alone from an empty cache, so a vector depends on its
// text only. Freed before the model is.
import type { EmbedInput, EmbedPooling, EmbedResult } from '../shared/worker-protocol.js';
import type { NativeContext, NativeModel } from '../native/addon.js';
import { embedTokens } from '../shared/settings/run-settings.js';
import { mixedTokens } from '../shared/mixed-prompt.js';
import { WorkerError } from './worker-error.js';

export class Embedder {
  private ctx: NativeContext | null = null;
  /** The pooling `ctx` was made with: a request for the other makes it again (one context at a time, the size the plan budgeted). */
  private pooling: EmbedPooling = 'mean';

  constructor(
    private readonly model: NativeModel,
    private readonly threads: number,
    /** The run's micro-batch: the context is as long as the plan budgeted (embedTokens). */
    private readonly ubatch: number,
  ) {}

  /** `truncate`: a text longer than the context keeps its first tokens (else the context refuses it). */
  async embed(texts: EmbedInput[], truncate = false, pooling: EmbedPooling = 'mean'): Promise<EmbedResult> {
    const n = embedTokens(this.ubatch, this.model.info().nCtxTrain);
    if (this.ctx && pooling !== this.pooling) this.free();
    this.pooling = pooling;
    this.ctx ??= this.model.createContext({ nCtx: n, nBatch: n, nThreads: this.threads, embeddings: true, pooling });
    const vectors: number[][] = [];
    let tokens = 0;
    for (const text of texts) {
      const all = typeof text === 'string' ? this.model.tokenize(text, true, false) : Int32Array.from(mixedTokens(text, (t, first) => this.model.tokenize(t, first, true)));
      if (all.length === 0) throw new WorkerError('EMPTY_PROMPT', 'there is nothing to embed: the text has no tokens');
      const toks = truncate && all.length > n ? all.subarray(0, n) : all;
      tokens += toks.length;
      vectors.push(Array.from(await this.ctx.embed(toks)));
    }
    // The native embed decodes a text in one llama_decode (the context's batch is its length).
    if (pooling === 'mean') return { vectors, tokens, decodes: vectors.length };
    // Without pooling each text's floats are its tokens' vectors one after the other.
    const width = this.model.info().nEmbd;
    const tokenVectors = vectors.map((flat) => Array.from({ length: flat.length / width }, (_, i) => flat.slice(i * width, (i + 1) * width)));
    return { vectors: [], tokens, decodes: vectors.length, tokenVectors };
  }

  free(): void {
    this.ctx?.free();
    this.ctx = null;
  }
}
