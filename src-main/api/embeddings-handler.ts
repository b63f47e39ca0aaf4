// POST /v1/embeddings, Ollama's /api/embed and its older /api/embeddings: the model check, the
// vectors from the worker (normalized but for the older route, as Ollama gives them), in the
// shape the route speaks. Under `serve --pooling none` (llama-server's) a text's embedding is a
// vector per token, which only llama-server's own /embeddings gives (`[{index, embedding: [[…],
// …]}]`); OpenAI's and Ollama's routes, whose shapes hold one vector per text, refuse it as
// llama-server's OpenAI route does.
import type { ServerResponse } from 'node:http';
import type { ApiBackend } from './backend.js';
import { badRequest } from './errors.js';
import { sendJson } from './http-reply.js';
import { namesModel } from './model-id.js';
import { servedFor } from './model-choice.js';
import { normalized, ollamaEmbeddings, openAiEmbeddings } from './embeddings-shape.js';
import type { EmbeddingsRequest } from './embeddings-request.js';
import type { EmbedPooling } from '../shared/worker-protocol.js';
import { ollamaModelFor } from './ollama-handler.js';

export interface EmbeddingsContext {
  backend: ApiBackend;
  res: ServerResponse;
  clientGone: AbortSignal;
  /** `serve --pooling`; absent: mean. */
  pooling?: EmbedPooling;
}

/**
 * 'llama': llama-server's /embeddings (the path without /v1), which under --pooling none answers
 * a vector per token; with mean pooling it answers as OpenAI's route does.
 */
export type EmbeddingsApi = 'openai' | 'llama' | 'ollama' | 'ollama-legacy';

export async function handleEmbeddings(req: EmbeddingsRequest, api: EmbeddingsApi, ctx: EmbeddingsContext): Promise<void> {
  if (ctx.pooling === 'none') return perToken(req, api, ctx);
  const t0 = performance.now();
  const { id } = api === 'ollama' || api === 'ollama-legacy' ? await ollamaModelFor(ctx.backend, req.model) : await servedFor(ctx.backend, req.model, namesModel, 'GET /v1/models');
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

/** --pooling none: every token's vector, unscaled, on llama-server's /embeddings only. */
async function perToken(req: EmbeddingsRequest, api: EmbeddingsApi, ctx: EmbeddingsContext): Promise<void> {
  // llama-server's words on its OpenAI route.
  if (api !== 'llama') throw badRequest("Pooling type 'none' is not OAI compatible. Please use a different pooling type (the server was started with --pooling none: POST /embeddings gives a vector per token)", 'input', 'pooling_none');
  if (req.dimensions !== null) throw badRequest("'dimensions' shortens one vector per text: the server was started with --pooling none", 'dimensions', 'unsupported_parameter');
  if (req.encoding !== 'float') throw badRequest("'encoding_format' base64 holds one vector per text: the server was started with --pooling none", 'encoding_format', 'unsupported_parameter');
  await servedFor(ctx.backend, req.model, namesModel, 'GET /v1/models');
  const run = await ctx.backend.embed(req.texts, ctx.clientGone, req.truncate, 'none');
  if (ctx.clientGone.aborted) return;
  sendJson(ctx.res, 200, (run.tokenVectors ?? []).map((embedding, index) => ({ index, embedding })));
}
