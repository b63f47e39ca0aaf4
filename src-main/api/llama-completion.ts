// llama-server's native POST /completion (SillyTavern's and editor plugins' route): llama-server's
// field names translated to the same checks as /v1/completions (`n_predict` → max_tokens, -1: no
// limit; `json_schema` → a JSON-schema response_format; `prompt` text or token ids), and the
// answer in its shape: `{content, stop, tokens_predicted, tokens_evaluated, stop_type, timings…}`,
// streamed as server-sent events of `{content, stop: false}` and a last one with `stop: true`
// (no [DONE], as llama-server ends it). Fields it does not know are ignored and named.
// `n_probs` adds `completion_probabilities` (llama-server's default shape: log-probabilities of
// the raw logits). POST /infill is the same with the prompt built for fill-in-the-middle from
// `input_prefix`, `input_suffix`, `input_extra` and `prompt` (infill-tokens.ts in the worker).
import { generationDefaults } from './generation-defaults.js';
import type { ApiSamplingDefaults } from '../shared/api-defaults.js';
import type { ServerResponse } from 'node:http';
import type { ApiBackend } from './backend.js';
import { badRequest } from './errors.js';
import { sendJson } from './http-reply.js';
import { llamaTimings } from './llama-timings.js';
import { llamaPrompt } from './llama-prompts.js';
import type { ApiGeneration } from './request-types.js';
import { namesModel } from './model-id.js';
import { servedFor } from './model-choice.js';
import { SSE_HEADERS, sseData, sseError } from './sse.js';
import { stoppedGeneration, writerOf } from './stopped-generation.js';
import { validateCompletionRequest } from './validate-request.js';
import { optBool, type Body } from './check-value.js';
import type { GenerateParams, InfillParts, PositionLogprobs } from '../shared/worker-protocol.js';
import { llamaProbabilities } from './logprobs-shape.js';
import { generationSettings } from './generation-settings.js';
import { checkResponseFields, pickFields } from './response-fields.js';

const RENAMED: Record<string, string> = { n_predict: 'max_tokens' };
/** llama-server's own fields that have no effect here (the cache and slots are the server's). */
const NO_EFFECT = new Set(['cache_prompt', 'id_slot', 'n_keep', 'return_tokens', 'samplers', 't_max_predict_ms', 'n_indent']);
/** /infill's own fields, checked by infillOf. */
const INFILL_FIELDS = new Set(['input_prefix', 'input_suffix', 'input_extra']);
/** Read here, not by the completion's checks (response-fields.ts, post_sampling_probs). */
const OWN_FIELDS = new Set(['response_fields', 'post_sampling_probs']);

interface Ctx {
  backend: ApiBackend;
  res: ServerResponse;
  clientGone: AbortSignal;
  noteIgnored: (names: string[]) => void;
  /** The server's sampling defaults for fields the request does not set (OpenAI's when absent). */
  defaults?: ApiSamplingDefaults;
}

/** The body in /v1/completions' terms, and llama-server's own fields that have no effect here. */
function translated(body: unknown, infill: boolean): { b: Body; noEffect: string[] } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the request body must be a JSON object', null, 'invalid_body');
  const out: Body = {};
  const noEffect: string[] = [];
  for (const [k, v] of Object.entries(body as Body)) {
    if (NO_EFFECT.has(k)) {
      noEffect.push(k);
      continue;
    }
    if ((infill && INFILL_FIELDS.has(k)) || OWN_FIELDS.has(k)) continue;
    // n_probs 0 (llama-server's default) asks for none.
    if (k === 'n_probs') {
      if (v !== 0) out.logprobs = v;
    } else if (k === 'n_predict') {
      if (typeof v === 'number' && v < 0) continue;
      out.max_tokens = v;
    } else if (k === 'json_schema') out.response_format = { type: 'json_schema', json_schema: { name: 'schema', schema: v } };
    else out[RENAMED[k] ?? k] = v;
  }
  return { b: out, noEffect };
}

/** /infill's parts, checked as llama-server checks them (with its words). */
function infillOf(body: Body): InfillParts {
  if (typeof body.input_prefix !== 'string') throw badRequest('"input_prefix" is required (a string)', 'input_prefix', 'missing_required_parameter');
  if (typeof body.input_suffix !== 'string') throw badRequest('"input_suffix" is required (a string)', 'input_suffix', 'missing_required_parameter');
  const extra = body.input_extra ?? [];
  if (!Array.isArray(extra)) throw badRequest('"input_extra" must be an array of {"filename": string, "text": string}', 'input_extra', 'invalid_type');
  return {
    prefix: body.input_prefix,
    suffix: body.input_suffix,
    extra: extra.map((c: unknown, i) => {
      const o = (c ?? {}) as Body;
      if (typeof o.text !== 'string') throw badRequest('extra_context chunk must contain a "text" field with a string value', `input_extra[${i}].text`, 'invalid_type');
      if (o.filename !== undefined && typeof o.filename !== 'string') throw badRequest('extra_context chunk\'s "filename" field must be a string', `input_extra[${i}].filename`, 'invalid_type');
      return { text: o.text, ...(o.filename !== undefined ? { filename: o.filename as string } : {}) };
    }),
  };
}

export async function handleLlamaCompletion(body: unknown, ctx: Ctx, infill = false): Promise<void> {
  const { b, noEffect } = translated(body, infill);
  // llama-server's own prompt forms (mixed ids and text, prompt_string objects) as OpenAI's.
  const tokenize = ctx.backend.tokenize?.bind(ctx.backend);
  if (!infill && Array.isArray(b.prompt) && tokenize) b.prompt = await llamaPrompt(b.prompt, async (t, first) => (await tokenize(t, first, true)).tokens);
  // /infill's prompt is optional (the start of the middle).
  const req = validateCompletionRequest(infill ? { prompt: '', ...b } : b, generationDefaults(ctx.defaults));
  const parts = infill ? infillOf(body as Body) : null;
  const fields = checkResponseFields((body as Body).response_fields);
  const postSampling = optBool(body as Body, 'post_sampling_probs') ?? false;
  ctx.noteIgnored([...noEffect, ...req.ignored]);
  const prompts = req.prompts ?? [req.promptTokens ?? req.prompt ?? ''];
  if (req.n > 1 || (prompts.length > 1 && (infill || req.stream))) throw badRequest(`${infill ? '/infill' : '/completion'} answers one prompt${infill ? '' : ', or a batch of them unstreamed'}: send a string or one array of token ids as 'prompt'`, 'prompt', 'invalid_value');
  if (parts && req.promptTokens) throw badRequest('"prompt" must be a string', 'prompt', 'invalid_type');
  const served = await servedFor(ctx.backend, req.model, namesModel, 'GET /v1/models');
  const inputOf = (p: string | number[]) => (parts ? { prompt: req.prompt ?? '', infill: parts } : typeof p === 'string' ? { prompt: p } : { promptTokens: p });
  const input = (p: string | number[]) => ({ ...inputOf(p), maxTokens: req.maxTokens ?? served.ctxPerSequence, ...(postSampling ? { postSamplingProbs: true } : {}) });
  const finals = await Promise.all(prompts.map((p) => answerOne(req, { model: served.id, fields }, input(p), ctx)));
  // Streamed, the answer has been written; a batch is a list, one object per prompt, in order.
  if (req.stream || finals.some((f) => f === null)) return;
  sendJson(ctx.res, 200, prompts.length === 1 ? finals[0] : finals);
}

/**
 * The prompt as the model read it, special tokens written out (`<s> Once upon…`), as llama-server
 * shows it; left out when the worker cannot say.
 */
async function promptText(backend: ApiBackend, tokens: number[]): Promise<{ prompt?: string }> {
  if (!backend.detokenize || tokens.length === 0) return {};
  const text = await backend.detokenize(tokens, true).catch(() => null);
  return text === null ? {} : { prompt: text };
}

/**
 * One prompt's generation in llama-server's shape: streamed to the client (then null), or the
 * final object returned; null too when the client left.
 */
async function answerOne(req: ApiGeneration, out: { model: string; fields: string[] }, input: Omit<GenerateParams, 'sampling'>, ctx: Ctx): Promise<object | null> {
  const params: GenerateParams = { ...input, sampling: req.sampling, ...(req.logprobs !== null ? { logprobs: req.logprobs } : {}) };
  const probs = req.logprobs !== null;
  const shape = (ps: PositionLogprobs[]) => llamaProbabilities(ps, input.postSamplingProbs ?? false);
  const pieces: string[] = [];
  const allProbs: PositionLogprobs[] = [];
  let started = false;
  const done = await stoppedGeneration(ctx, params, req.stop, {
    emit: (text, write, lps) => {
      if (!req.stream) return void (pieces.push(text), allProbs.push(...lps));
      if (!started) (started = true), ctx.res.writeHead(200, SSE_HEADERS);
      write(sseData({ content: text, stop: false, ...(probs ? { completion_probabilities: shape(lps) } : {}) }));
    },
    failedAfterStart: (err, write) => {
      if (!started) return false;
      write(sseError(err));
      return true;
    },
  });
  if (!done) return null;
  const r = done.run.result;
  const stopType = done.stopHit ? 'word' : r.stopReason === 'max_tokens' || r.stopReason === 'ctx_full' ? 'limit' : 'eos';
  const whole = {
    content: req.stream ? '' : pieces.join(''),
    ...(probs ? { completion_probabilities: shape(req.stream ? done.restLogprobs : [...allProbs, ...done.restLogprobs]) } : {}),
    stop: true,
    model: out.model,
    tokens_predicted: r.tokens.length,
    tokens_evaluated: r.promptTokens.length,
    generation_settings: generationSettings({ sampling: params.sampling, maxTokens: req.maxTokens, stream: req.stream, nProbs: req.logprobs ?? 0, postSamplingProbs: input.postSamplingProbs ?? false, ...(r.logitBias ? { logitBias: r.logitBias } : {}) }),
    // A round trip to the worker, made only when the answer will carry it.
    ...(out.fields.length === 0 || out.fields.includes('prompt') ? await promptText(ctx.backend, r.promptTokens) : {}),
    stop_type: stopType,
    stopping_word: '',
    truncated: false,
    timings: llamaTimings(r),
    ramforge: done.run.extras,
  };
  const final = pickFields(out.fields, whole);
  if (!req.stream) return final;
  if (!started) ctx.res.writeHead(200, SSE_HEADERS);
  writerOf(ctx.res)(sseData(final));
  ctx.res.end();
  return null;
}
