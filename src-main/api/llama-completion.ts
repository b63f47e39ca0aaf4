// llama-server's native POST /completion (SillyTavern's and editor plugins' route): llama-server's
// field names translated to the same checks as /v1/completions (`n_predict` → max_tokens, -1: no
// limit; `json_schema` → a JSON-schema response_format; `prompt` text or token ids), and the
// answer in its shape: `{content, stop, tokens_predicted, tokens_evaluated, stop_type, timings…}`,
// streamed as server-sent events of `{content, stop: false}` and a last one with `stop: true`
// (no [DONE], as llama-server ends it). Fields it does not know are ignored and named.
import type { ServerResponse } from 'node:http';
import type { ApiBackend } from './backend.js';
import { badRequest } from './errors.js';
import { sendJson } from './http-reply.js';
import { namesModel } from './model-id.js';
import { servedFor } from './model-choice.js';
import { SSE_HEADERS, sseData, sseError } from './sse.js';
import { stoppedGeneration, writerOf } from './stopped-generation.js';
import { validateCompletionRequest } from './validate-request.js';
import type { Body } from './check-value.js';

const RENAMED: Record<string, string> = { n_predict: 'max_tokens' };
/** llama-server's own fields that have no effect here (the cache and slots are the server's). */
const NO_EFFECT = new Set(['cache_prompt', 'id_slot', 'n_keep', 'n_probs', 'return_tokens', 'samplers', 't_max_predict_ms', 'n_indent']);

interface Ctx {
  backend: ApiBackend;
  res: ServerResponse;
  clientGone: AbortSignal;
  noteIgnored: (names: string[]) => void;
}

/** The body in /v1/completions' terms, and llama-server's own fields that have no effect here. */
function translated(body: unknown): { b: Body; noEffect: string[] } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the request body must be a JSON object', null, 'invalid_body');
  const out: Body = {};
  const noEffect: string[] = [];
  for (const [k, v] of Object.entries(body as Body)) {
    if (NO_EFFECT.has(k)) {
      noEffect.push(k);
      continue;
    }
    if (k === 'n_predict') {
      if (typeof v === 'number' && v < 0) continue;
      out.max_tokens = v;
    } else if (k === 'json_schema') out.response_format = { type: 'json_schema', json_schema: { name: 'schema', schema: v } };
    else out[RENAMED[k] ?? k] = v;
  }
  return { b: out, noEffect };
}

export async function handleLlamaCompletion(body: unknown, ctx: Ctx): Promise<void> {
  const { b, noEffect } = translated(body);
  const req = validateCompletionRequest(b);
  ctx.noteIgnored([...noEffect, ...req.ignored]);
  if ((req.prompts?.length ?? 1) > 1 || req.n > 1) throw badRequest("/completion answers one prompt: send a string or one array of token ids as 'prompt'", 'prompt', 'invalid_value');
  const served = await servedFor(ctx.backend, req.model, namesModel, 'GET /v1/models');
  const params = { ...(req.promptTokens ? { promptTokens: req.promptTokens } : { prompt: req.prompt ?? '' }), maxTokens: req.maxTokens ?? served.ctxPerSequence, sampling: req.sampling };
  const pieces: string[] = [];
  let started = false;
  const done = await stoppedGeneration(ctx, params, req.stop, {
    emit: (text, write) => {
      if (!req.stream) return void pieces.push(text);
      if (!started) (started = true), ctx.res.writeHead(200, SSE_HEADERS);
      write(sseData({ content: text, stop: false }));
    },
    failedAfterStart: (err, write) => {
      if (!started) return false;
      write(sseError(err));
      return true;
    },
  });
  if (!done) return;
  const r = done.run.result;
  const stopType = done.stopHit ? 'word' : r.stopReason === 'max_tokens' || r.stopReason === 'ctx_full' ? 'limit' : 'eos';
  const final = {
    content: req.stream ? '' : pieces.join(''),
    stop: true,
    model: served.id,
    tokens_predicted: r.tokens.length,
    tokens_evaluated: r.promptTokens.length,
    stop_type: stopType,
    stopping_word: '',
    truncated: false,
    timings: { prompt_n: r.promptTokens.length, prompt_ms: r.timings.promptMs, predicted_n: r.tokens.length, predicted_ms: r.timings.decodeMs, predicted_per_second: r.timings.decodeTokS },
    ramforge: done.run.extras,
  };
  if (!req.stream) return sendJson(ctx.res, 200, final);
  if (!started) ctx.res.writeHead(200, SSE_HEADERS);
  writerOf(ctx.res)(sseData(final));
  ctx.res.end();
}
