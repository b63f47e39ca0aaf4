// Embeddings for the loaded model: a second context on the same weights, made on the first
// request (generation never pays for it) with embeddings on and mean pooling, as llama-server's
// /v1/embeddings. Each text is decoded alone from an empty cache, so a vector depends on its
// text only. Freed before the model is.
import type { EmbedResult } from '../shared/worker-protocol.js';
import type { NativeContext, NativeModel } from '../native/addon.js';

/** Tokens one text may have: llama-server's default micro-batch, which embeds a text at once. */
export const EMBED_MAX_TOKENS = 512;

export class Embedder {
  private ctx: NativeContext | null = null;

  constructor(
    private readonly model: NativeModel,
    private readonly threads: number,
  ) {}

  async embed(texts: string[]): Promise<EmbedResult> {
    if (!this.ctx) {
      const n = Math.max(16, Math.min(EMBED_MAX_TOKENS, this.model.info().nCtxTrain || EMBED_MAX_TOKENS));
      this.ctx = this.model.createContext({ nCtx: n, nBatch: n, nThreads: this.threads, embeddings: true });
    }
    const vectors: number[][] = [];
    let tokens = 0;
    for (const text of texts) {
      const toks = this.model.tokenize(text, true, false);
      tokens += toks.length;
      vectors.push(Array.from(await this.ctx.embed(toks)));
    }
    return { vectors, tokens };
  }

  free(): void {
    this.ctx?.free();
    this.ctx = null;
  }
}
