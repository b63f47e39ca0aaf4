// One Ollama /api/chat or /api/generate request, from a validated body to its answer: the model
// check, the prompt (chat turns, or generate's prompt through the chat template unless raw), the
// generation on the worker with stop strings, and the answer as NDJSON lines (Ollama's default)
// or one JSON object. As for OpenAI streams, the status line goes out with the first token, so
// what fails before then keeps its own status; an error after it is one last `{"error"}` line.
import type { ServerResponse } from 'node:http';
import type { GenerateParams, PositionLogprobs } from '../shared/worker-protocol.js';
import { chatEntry } from './logprobs-shape.js';
import type { ApiBackend, ServedModel } from './backend.js';
import { ApiError, badRequest } from './errors.js';
import { servedFor } from './model-choice.js';
import { sendJson } from './http-reply.js';
import { OLLAMA_NDJSON_HEADERS, ndjson, ollamaErrorBody, ollamaFinal, ollamaNamesModel, ollamaPiece, type OllamaMeta } from './ollama-shape.js';
import type { OllamaRequest } from './ollama-validate.js';
import { finishReasonOf } from './response-shape.js';
import { stoppedGeneration, writerOf } from './stopped-generation.js';
import { ToolCallSplitter, parseToolCalls } from './tool-calls.js';
import { NO_TOOL_TEMPLATE_MESSAGE, templateSupportsTools } from './tool-request.js';
import { ollamaCallsOut } from './ollama-tools.js';


export interface OllamaContext {
  backend: ApiBackend;
  res: ServerResponse;
  clientGone: AbortSignal;
  /** Milliseconds, for total_duration. */
  now: () => number;
}

/** The served model the request names, or the error that says why not. */
export function ollamaModelFor(backend: ApiBackend, name: string | null): Promise<ServedModel> {
  return servedFor(backend, name, ollamaNamesModel, 'GET /api/tags');
}

/** What the worker is asked for, or null when the request only asks for the model to be loaded. */
function paramsOf(req: OllamaRequest, served: ServedModel): Omit<GenerateParams, 'maxTokens' | 'sampling'> | null {
  if (req.api === 'chat') {
    if (req.messages.length === 0) return null;
    // Tools and tool turns are rendered by the model's own template in the worker, as on /v1/chat/completions.
    const toolTurns = req.messages.some((m) => m.role === 'tool' || (m.toolCalls?.length ?? 0) > 0);
    if ((req.tools || toolTurns) && !templateSupportsTools(served.facts?.chatTemplate)) throw badRequest(NO_TOOL_TEMPLATE_MESSAGE, req.tools ? 'tools' : 'messages', 'tools_unsupported');
    return { messages: req.messages, ...(req.tools ? { tools: req.tools.tools } : toolTurns ? { tools: [] } : {}) };
  }
  if (req.prompt === '') return null;
  // Ollama fills in the middle when a suffix comes: here through the vocabulary's FIM tokens.
  if (req.suffix !== null) return { prompt: '', infill: { prefix: req.prompt, suffix: req.suffix, extra: [] } };
  // As Ollama does: the prompt is a user turn in the model's template, unless raw (or there is none).
  if (req.raw || !served.hasChatTemplate) {
    if (req.system !== null) throw badRequest("'system' needs the model's chat template, and this model has none", 'system', 'chat_template_missing');
    return { prompt: req.prompt };
  }
  return { messages: [...(req.system !== null ? [{ role: 'system' as const, content: req.system }] : []), { role: 'user', content: req.prompt }] };
}

export async function handleOllama(req: OllamaRequest, ctx: OllamaContext): Promise<void> {
  const t0 = ctx.now();
  const only = req.api === 'chat' ? req.messages.length === 0 : req.prompt === '';
  if (only && req.unload) return answerUnload(req, ctx);
  const served = await ollamaModelFor(ctx.backend, req.model);
  if (req.numCtx !== null && req.numCtx > served.ctxPerSequence) {
    throw badRequest(
      `'options.num_ctx' ${req.numCtx} is more than the ${served.ctxPerSequence} tokens each sequence of the loaded model holds: the context is set when the model is loaded (ramforge serve --ctx)`,
      'options.num_ctx',
      'invalid_value',
    );
  }
  const meta: OllamaMeta = { model: req.model ?? served.id, createdAt: new Date().toISOString() };
  const { res } = ctx;
  const base = paramsOf(req, served);
  if (base === null) {
    const load = ollamaFinal(req.api, meta, '', { doneReason: 'load', totalMs: 0, promptTokens: 0, promptMs: 0, evalTokens: 0, evalMs: 0 }, null);
    if (!req.stream) return sendJson(res, 200, load);
    res.writeHead(200, OLLAMA_NDJSON_HEADERS);
    res.end(ndjson(load));
    return;
  }
  // A smaller num_ctx than the sequence holds bounds the answer as Ollama's context would.
  const limit = Math.min(req.maxTokens ?? served.ctxPerSequence, req.numCtx ?? Infinity);
  const params: GenerateParams = { ...base, maxTokens: limit, sampling: req.sampling, ...(req.logprobs !== null ? { logprobs: req.logprobs } : {}) };
  const withLogprobs = (o: object, lps: PositionLogprobs[]): object => (req.logprobs === null ? o : { ...o, logprobs: lps.map(chatEntry) });
  const allLogprobs: PositionLogprobs[] = [];

  const pieces: string[] = [];
  let started = false;
  const names = new Set(req.tools?.tools.map((t) => t.name) ?? []);
  const splitter = req.tools && req.stream ? new ToolCallSplitter() : null;
  const begin = (): void => {
    if (started) return;
    started = true;
    res.writeHead(200, OLLAMA_NDJSON_HEADERS);
  };
  const done = await stoppedGeneration(ctx, params, req.stop, {
    emit: (text, write, lps) => {
      if (!req.stream) return void (pieces.push(text), allLogprobs.push(...lps));
      begin();
      const out = splitter ? splitter.push(text) : text;
      if (out !== '' || lps.length > 0) write(ndjson(withLogprobs(ollamaPiece(req.api, meta, out), lps)));
    },
    failedAfterStart: (err, write) => {
      if (!started) return false;
      write(ndjson(ollamaErrorBody(err)));
      return true;
    },
  });
  if (!done) return;
  const { run } = done;
  const r = run.result;
  const write = writerOf(res);
  // With tools: the calls the text holds (streamed: the content before them went out as it came).
  const parsed = !req.tools ? { content: pieces.join(''), calls: [] } : splitter ? splitter.finish(names) : parseToolCalls(pieces.join(''), names);
  const calls = ollamaCallsOut(parsed.calls);
  if (splitter) {
    begin();
    if (parsed.content || calls.length > 0) write(ndjson(ollamaPiece(req.api, meta, parsed.content ?? '', calls.length > 0 ? calls : undefined)));
  }
  const final = ollamaFinal(
    req.api,
    meta,
    req.stream ? '' : (parsed.content ?? ''),
    {
      doneReason: done.stopHit ? 'stop' : finishReasonOf(r.stopReason),
      totalMs: ctx.now() - t0,
      promptTokens: r.promptTokens.length,
      promptMs: r.timings.promptMs,
      evalTokens: r.tokens.length,
      evalMs: Math.max(0, r.timings.ttftMs - r.timings.promptMs) + r.timings.decodeMs,
    },
    run.extras,
    req.stream ? undefined : calls,
  );
  if (!req.stream) sendJson(res, 200, withLogprobs(final, [...allLogprobs, ...done.restLogprobs]));
  else {
    begin();
    write(ndjson(done.restLogprobs.length > 0 ? withLogprobs(final, done.restLogprobs) : final));
    res.end();
  }
  // keep_alive 0 with a prompt: answered first, then unloaded.
  if (req.unload) await ctx.backend.unload?.();
}

/** keep_alive 0 and nothing to generate: the model is unloaded (if it was loaded), done_reason "unload". */
async function answerUnload(req: OllamaRequest, ctx: OllamaContext): Promise<void> {
  const served = ctx.backend.model();
  await ctx.backend.unload?.();
  const meta: OllamaMeta = { model: req.model ?? (served instanceof ApiError ? '' : served.id), createdAt: new Date().toISOString() };
  const line = ollamaFinal(req.api, meta, '', { doneReason: 'unload', totalMs: 0, promptTokens: 0, promptMs: 0, evalTokens: 0, evalMs: 0 }, null);
  if (!req.stream) return sendJson(ctx.res, 200, line);
  ctx.res.writeHead(200, OLLAMA_NDJSON_HEADERS);
  ctx.res.end(ndjson(line));
}
