// POST /v1/embeddings, Ollama's /api/embed and its older /api/embeddings: the model check, the
// vectors from the worker (normalized but for the older route, as Ollama gives them), in the
// shape the route speaks.
import type { ServerResponse } from 'node:http';
import type { ApiBackend } from './backend.js';
import { badRequest } from './errors.js';
import { sendJson } from './http-reply.js';
import { namesModel } from './model-id.js';
import { servedFor } from './model-choice.js';
import { normalized, ollamaEmbeddings, openAiEmbeddings } from './embeddings-shape.js';
import type { EmbeddingsRequest } from './embeddings-request.js';
import { ollamaModelFor } from './ollama-handler.js';

export interface EmbeddingsContext {
  backend: ApiBackend;
  res: ServerResponse;
  clientGone: AbortSignal;
}

export async function handleEmbeddings(req: EmbeddingsRequest, api: 'openai' | 'ollama' | 'ollama-legacy', ctx: EmbeddingsContext): Promise<void> {
  const t0 = performance.now();
  const { id } = api !== 'openai' ? await ollamaModelFor(ctx.backend, req.model) : await servedFor(ctx.backend, req.model, namesModel, 'GET /v1/models');
  const run = await ctx.backend.embed(req.texts, ctx.clientGone, req.truncate);
  if (ctx.clientGone.aborted) return;
  const size = run.vectors[0]?.length ?? 0;
  if (req.dimensions !== null && req.dimensions > size) {
    throw badRequest(`'dimensions' must be at most ${size}, this model's embedding size`, 'dimensions', 'invalid_value');
  }
  // Shortened as OpenAI's and Ollama's `dimensions` do: the first values, then unit length again.
  const shortened = req.dimensions !== null ? run.vectors.map((v) => v.slice(0, req.dimensions ?? size)) : run.vectors;
  const vectors = req.normalize ? shortened.map(normalized) : shortened;
  if (api === 'ollama-legacy') return sendJson(ctx.res, 200, { embedding: vectors[0] ?? [] });
  sendJson(ctx.res, 200, api === 'ollama' ? ollamaEmbeddings(req.model ?? id, vectors, run.tokens, performance.now() - t0) : openAiEmbeddings(id, vectors, req.encoding, run.tokens));
}
