// Ollama's routes on the API server: which exist with which method, and what each answers. The
// HTTP server does access, auth and body limits for them as for OpenAI's routes, and writes
// their errors in Ollama's shape.
import type { EmbedPooling } from '../shared/worker-protocol.js';
import type { ApiSamplingDefaults } from '../shared/api-defaults.js';
import type { ServerResponse } from 'node:http';
import { RAMFORGE_VERSION } from '../shared/version.js';
import type { ApiBackend } from './backend.js';
import { handleEmbeddings } from './embeddings-handler.js';
import { validateOllamaEmbed, validateOllamaLegacyEmbeddings } from './embeddings-request.js';
import { ApiError } from './errors.js';
import { sendJson } from './http-reply.js';
import { handleOllama, ollamaModelFor } from './ollama-handler.js';
import { handleOllamaPull } from './ollama-pull.js';
import { handleModelFiles } from './ollama-model-files.js';
import { showObject, tagsList } from './ollama-shape.js';
import { validateOllamaChat, validateOllamaGenerate, validateOllamaShow } from './ollama-validate.js';

export const OLLAMA_ROUTES: Record<string, string[]> = {
  '/api/tags': ['GET'],
  '/api/ps': ['GET'],
  '/api/version': ['GET'],
  '/api/show': ['POST'],
  '/api/chat': ['POST'],
  '/api/generate': ['POST'],
  '/api/embed': ['POST'],
  '/api/embeddings': ['POST'],
  '/api/pull': ['POST'],
  '/api/delete': ['DELETE'],
  '/api/copy': ['POST'],
  '/api/create': ['POST'],
};

export const isOllamaRoute = (route: string): boolean => route.startsWith('/api/');

/** Routes that answer without the API key (nothing in them is private), like /health. */
export const OLLAMA_OPEN_ROUTES = new Set(['/api/version']);

/** The GET routes: what they answer. */
export function ollamaGet(route: string, backend: ApiBackend): object {
  if (route === '/api/version') return { version: RAMFORGE_VERSION };
  const m = backend.model();
  return tagsList(m instanceof ApiError ? null : m, route === '/api/ps');
}

export interface OllamaPostContext {
  backend: ApiBackend;
  res: ServerResponse;
  clientGone: AbortSignal;
  /** Names the request's accepted-but-ignored fields to the client (a header) and the log. */
  noteIgnored: (names: string[]) => void;
  /** The server's sampling defaults (`serve --temp …`) for fields a request does not set. */
  defaults?: ApiSamplingDefaults;
  /** `serve --pooling` (embeddings); absent: mean. */
  pooling?: EmbedPooling;
  /** The request's path began with /v1/ (OpenAI's routes; without it, llama-server's own). */
  v1?: boolean;
}

/** The POST routes; an ApiError thrown before an answer began is the caller's to send. */
export async function ollamaPost(route: string, body: unknown, ctx: OllamaPostContext): Promise<void> {
  if (route === '/api/show') {
    const show = validateOllamaShow(body);
    ctx.noteIgnored(show.ignored);
    return sendJson(ctx.res, 200, showObject(await ollamaModelFor(ctx.backend, show.model)));
  }
  if (route === '/api/pull') return handleOllamaPull(body, ctx);
  if (route === '/api/delete' || route === '/api/copy' || route === '/api/create') return handleModelFiles(route, body, ctx);
  if (route === '/api/embed' || route === '/api/embeddings') {
    const req = route === '/api/embed' ? validateOllamaEmbed(body) : validateOllamaLegacyEmbeddings(body);
    ctx.noteIgnored(req.ignored);
    return handleEmbeddings(req, route === '/api/embed' ? 'ollama' : 'ollama-legacy', ctx);
  }
  const req = route === '/api/chat' ? validateOllamaChat(body, ctx.defaults) : validateOllamaGenerate(body, ctx.defaults);
  ctx.noteIgnored(req.ignored);
  await handleOllama(req, { ...ctx, now: () => performance.now() });
}
