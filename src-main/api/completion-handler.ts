// One chat or text completion, from a validated request to its answer: the model check, the
// generation on the worker, stop strings, and the answer as one JSON object or as a stream of
// server-sent events. The status line of a stream goes out with its first token, so everything
// that fails before then (queue full, no model, prompt too long) still gets its own status.
import type { ServerResponse } from 'node:http';
import type { GenerateParams } from '../shared/worker-protocol.js';
import type { ApiBackend } from './backend.js';
import { ApiError, badRequest, notFound } from './errors.js';
import { sendJson } from './http-reply.js';
import { namesModel } from './model-id.js';
import type { ApiGeneration } from './request-types.js';
import { chunkObject, completionObject, finishReasonOf, usageChunk, usageOf, type ResponseMeta } from './response-shape.js';
import { SSE_DONE, SSE_HEADERS, sseData, sseError } from './sse.js';
import { stoppedGeneration, writerOf } from './stopped-generation.js';

export const NO_TEMPLATE_MESSAGE =
  "this model has no chat template (tokenizer.chat_template), so /v1/chat/completions cannot turn messages into its prompt: use /v1/completions with a 'prompt' (raw text continuation), as for any base model";

export interface CompletionContext {
  backend: ApiBackend;
  res: ServerResponse;
  /** Aborts when the client goes away. */
  clientGone: AbortSignal;
  meta: Omit<ResponseMeta, 'model'>;
}

/** Resolves when the answer is complete (or the client gone); an ApiError thrown before the stream began is the caller's to send. */
export async function handleCompletion(req: ApiGeneration, ctx: CompletionContext): Promise<void> {
  const served = ctx.backend.model();
  if (served instanceof ApiError) throw served;
  if (!namesModel(req.model, served)) {
    throw notFound(`the model '${req.model.slice(0, 200)}' does not exist: this server serves '${served.id}' (GET /v1/models)`, 'model_not_found');
  }
  if (req.kind === 'chat' && !served.hasChatTemplate) throw badRequest(NO_TEMPLATE_MESSAGE, 'messages', 'chat_template_missing');

  const meta: ResponseMeta = { ...ctx.meta, model: served.id };
  const { res } = ctx;
  const params: GenerateParams = {
    ...(req.kind === 'chat' ? { messages: req.messages ?? [] } : { prompt: req.prompt ?? '' }),
    // Without a limit, the answer may fill what the sequence's context leaves.
    maxTokens: req.maxTokens ?? served.ctxPerSequence,
    sampling: req.sampling,
  };
  const pieces: string[] = req.echo ? [req.prompt ?? ''] : [];
  let started = false;
  const begin = (write: (s: string) => void): void => {
    if (started) return;
    started = true;
    res.writeHead(200, SSE_HEADERS);
    if (req.kind === 'chat') write(sseData(chunkObject('chat', meta, { role: true }, req.includeUsage)));
    else if (req.echo) write(sseData(chunkObject('completion', meta, { text: req.prompt ?? '' }, req.includeUsage)));
  };
  const done = await stoppedGeneration(ctx, params, req.stop, {
    emit: (text, write) => {
      if (!req.stream) return void pieces.push(text);
      begin(write);
      write(sseData(chunkObject(req.kind, meta, { text }, req.includeUsage)));
    },
    failedAfterStart: (err, write) => {
      if (!started) return false;
      write(sseError(err));
      return true;
    },
  });
  if (!done) return;
  const { run } = done;
  const write = writerOf(res);
  const finish = done.stopHit ? 'stop' : finishReasonOf(run.result.stopReason);
  const usage = usageOf(run.result.promptTokens.length, run.result.tokens.length);
  if (!req.stream) {
    sendJson(res, 200, completionObject(req.kind, meta, pieces.join(''), finish, usage, run.extras));
    return;
  }
  begin(write);
  // Our extras ride on the last chunk: the usage chunk when asked for, else the finish chunk.
  const last = chunkObject(req.kind, meta, { finish }, req.includeUsage);
  write(sseData(req.includeUsage ? last : { ...last, ramforge: run.extras }));
  if (req.includeUsage) write(sseData(usageChunk(req.kind, meta, usage, run.extras)));
  write(SSE_DONE);
  res.end();
}
