// One chat or text completion, from a validated request to its answer: the model check, the
// generation on the worker, stop strings, and the answer as one JSON object or as a stream of
// server-sent events. The status line of a stream goes out with its first token, so everything
// that fails before then (queue full, no model, prompt too long) still gets its own status.
import type { ServerResponse } from 'node:http';
import type { GenerateParams } from '../shared/worker-protocol.js';
import type { ApiBackend } from './backend.js';
import { ApiError, asApiError, badRequest, notFound } from './errors.js';
import { sendJson } from './http-reply.js';
import { namesModel } from './model-id.js';
import type { ApiGeneration } from './request-types.js';
import { chunkObject, completionObject, finishReasonOf, usageChunk, usageOf, type ResponseMeta } from './response-shape.js';
import { SSE_DONE, SSE_HEADERS, sseData, sseError } from './sse.js';
import { StopMatcher } from './stop-strings.js';

/** Bytes waiting for a client that does not read; past this it is treated as gone. */
const MAX_UNREAD_BYTES = 8 * 1024 * 1024;

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
  const stop = new AbortController();
  const onGone = (): void => stop.abort();
  if (ctx.clientGone.aborted) return;
  ctx.clientGone.addEventListener('abort', onGone, { once: true });
  const matcher = new StopMatcher(req.stop);
  const pieces: string[] = req.echo ? [req.prompt ?? ''] : [];
  let started = false;

  const write = (s: string): void => {
    if (res.destroyed) return;
    res.write(s);
    if (res.writableLength > MAX_UNREAD_BYTES) {
      res.destroy();
      stop.abort();
    }
  };
  const begin = (): void => {
    if (started) return;
    started = true;
    res.writeHead(200, SSE_HEADERS);
    if (req.kind === 'chat') write(sseData(chunkObject('chat', meta, { role: true }, req.includeUsage)));
    else if (req.echo) write(sseData(chunkObject('completion', meta, { text: req.prompt ?? '' }, req.includeUsage)));
  };
  const emit = (text: string): void => {
    if (text === '') return;
    if (!req.stream) {
      pieces.push(text);
      return;
    }
    begin();
    write(sseData(chunkObject(req.kind, meta, { text }, req.includeUsage)));
  };

  let run;
  try {
    run = await ctx.backend.generate(
      params,
      (t) => {
        const step = matcher.push(t.text);
        emit(step.emit);
        if (step.stopped) stop.abort();
      },
      stop.signal,
    );
  } catch (e) {
    if (ctx.clientGone.aborted) return;
    const err = asApiError(e);
    if (!started) throw err;
    write(sseError(err));
    res.end();
    return;
  } finally {
    ctx.clientGone.removeEventListener('abort', onGone);
  }
  if (ctx.clientGone.aborted || res.destroyed) return;
  emit(matcher.flush());
  const finish = matcher.hit ? 'stop' : finishReasonOf(run.result.stopReason);
  const usage = usageOf(run.result.promptTokens.length, run.result.tokens.length);
  if (!req.stream) {
    sendJson(res, 200, completionObject(req.kind, meta, pieces.join(''), finish, usage, run.extras));
    return;
  }
  begin();
  // Our extras ride on the last chunk: the usage chunk when asked for, else the finish chunk.
  const last = chunkObject(req.kind, meta, { finish }, req.includeUsage);
  write(sseData(req.includeUsage ? last : { ...last, ramforge: run.extras }));
  if (req.includeUsage) write(sseData(usageChunk(req.kind, meta, usage, run.extras)));
  write(SSE_DONE);
  res.end();
}
