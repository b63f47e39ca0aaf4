// One chat or text completion, from a validated request to its answer: the model check, the
// generation on the worker, stop strings, and the answer as one JSON object or as a stream of
// server-sent events. The status line of a stream goes out with its first token, so everything
// that fails before then (queue full, no model, prompt too long) still gets its own status.
// With tools, the text is parsed for <tool_call> blocks (tool-calls.ts): after the generation
// when answering at once, as it streams otherwise (content until a call begins, the calls at the end).
import type { ServerResponse } from 'node:http';
import type { ApiBackend } from './backend.js';
import { sendJson } from './http-reply.js';
import { callOut, prepareChat } from './chat-run.js';
import { handleMultiChoice } from './multi-choice.js';
import type { ApiGeneration } from './request-types.js';
import { chunkObject, completionObject, finishReasonOf, usageChunk, usageOf, type FinishReason, type ResponseMeta } from './response-shape.js';
import { SSE_DONE, SSE_HEADERS, sseData, sseError } from './sse.js';
import { stoppedGeneration, writerOf } from './stopped-generation.js';
import { ToolCallSplitter, parseToolCalls } from './tool-calls.js';
import { ChoiceLogprobs } from './logprobs-shape.js';

export interface CompletionContext {
  backend: ApiBackend;
  res: ServerResponse;
  /** Aborts when the client goes away. */
  clientGone: AbortSignal;
  meta: Omit<ResponseMeta, 'model'>;
}

/** Resolves when the answer is complete (or the client gone); an ApiError thrown before the stream began is the caller's to send. */
export async function handleCompletion(req: ApiGeneration, ctx: CompletionContext): Promise<void> {
  const { served, params, calling, names, maxCalls } = await prepareChat(req, ctx.backend);
  const splitter = calling && req.stream ? new ToolCallSplitter() : null;
  const meta: ResponseMeta = { ...ctx.meta, model: served.id };
  if (req.n > 1 || (req.prompts?.length ?? 1) > 1) return handleMultiChoice(req, ctx, served, meta);
  const { res } = ctx;
  const logprobs = req.logprobs === null ? null : new ChoiceLogprobs(req.kind, req.echo ? 0 : (req.prompt ?? '').length);
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
    emit: (text, write, lps) => {
      if (!req.stream) return void (pieces.push(text), logprobs?.all.push(...lps));
      begin(write);
      const out = splitter ? splitter.push(text) : text;
      const lp = logprobs ? { logprobs: logprobs.chunk(lps) } : {};
      if (out !== '' || lps.length > 0) write(sseData(chunkObject(req.kind, meta, { text: out, ...lp }, req.includeUsage)));
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
  const stopped = done.stopHit ? 'stop' : finishReasonOf(run.result.stopReason);
  const usage = usageOf(run.result.promptTokens.length, run.result.tokens.length);
  if (!req.stream) {
    const text = pieces.join('');
    const parsed = calling ? parseToolCalls(text, names, maxCalls) : { content: text, calls: [] };
    const finish = parsed.calls.length > 0 ? 'tool_calls' : stopped;
    logprobs?.all.push(...done.restLogprobs);
    const lp = logprobs?.whole(req.echo ? run.result.promptLogprobs : undefined) ?? null;
    sendJson(res, 200, completionObject(req.kind, meta, parsed.content, finish, usage, run.extras, parsed.calls.map(callOut), lp));
    return;
  }
  begin(write);
  if (logprobs && done.restLogprobs.length > 0) write(sseData(chunkObject(req.kind, meta, { text: '', logprobs: logprobs.chunk(done.restLogprobs) }, req.includeUsage)));
  let finish: FinishReason = stopped;
  if (splitter) {
    const end = splitter.finish(names, maxCalls);
    if (end.content !== '') write(sseData(chunkObject('chat', meta, { text: end.content }, req.includeUsage)));
    // OpenAI's stream shape: a call's id, type and name first, then its arguments.
    for (const [index, c] of end.calls.map(callOut).entries()) {
      write(sseData(chunkObject('chat', meta, { toolCalls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }] }, req.includeUsage)));
      write(sseData(chunkObject('chat', meta, { toolCalls: [{ index, function: { arguments: c.function.arguments } }] }, req.includeUsage)));
    }
    if (end.calls.length > 0) finish = 'tool_calls';
  }
  // Our extras ride on the last chunk: the usage chunk when asked for, else the finish chunk.
  const last = chunkObject(req.kind, meta, { finish }, req.includeUsage);
  write(sseData(req.includeUsage ? last : { ...last, ramforge: run.extras }));
  if (req.includeUsage) write(sseData(usageChunk(req.kind, meta, usage, run.extras)));
  write(SSE_DONE);
  res.end();
}
