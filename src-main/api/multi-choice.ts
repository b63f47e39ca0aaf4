// Several choices in one request: OpenAI's `n` > 1 and, on /v1/completions, a batch of prompts
// (LangChain's completions client sends one). Each choice is its own generation; they take the
// served model's sequences together (decoded in one batch where --parallel allows) and the
// answer, sent once all are done, lists them prompt by prompt, then choice by choice, as OpenAI
// orders them, with the usage summed. With a fixed seed, choice j samples with seed + j, so the
// choices differ as they do on OpenAI. Not streamed (validation refuses that).
import type { GenerateParams } from '../shared/worker-protocol.js';
import type { ServedModel } from './backend.js';
import type { CompletionContext } from './completion-handler.js';
import { badRequest } from './errors.js';
import { sendJson } from './http-reply.js';
import type { ApiGeneration } from './request-types.js';
import { completionObject, finishReasonOf, usageOf, type ResponseMeta } from './response-shape.js';
import { stoppedGeneration } from './stopped-generation.js';
import { ChoiceLogprobs } from './logprobs-shape.js';
import { RANDOM_SEED } from './validate-request.js';
import type { BackendRun } from './backend.js';

interface Choice {
  text: string;
  logprobs: object | null;
  finish: 'stop' | 'length';
  run: BackendRun;
}

export async function handleMultiChoice(req: ApiGeneration, ctx: CompletionContext, served: ServedModel, meta: ResponseMeta): Promise<void> {
  if (req.kind === 'chat' && req.tools) throw badRequest("tools are answered one choice per request: send 'n': 1", 'n', 'unsupported_parameter');
  const prompts: (string | number[] | null)[] = req.kind === 'chat' ? [null] : (req.prompts ?? [req.prompt ?? '']);
  const jobs = prompts.flatMap((prompt, p) => Array.from({ length: req.n }, (_, j) => ({ index: p * req.n + j, prompt, j })));
  const out: (Choice | null)[] = new Array<Choice | null>(jobs.length).fill(null);
  let next = 0;
  const one = async (): Promise<void> => {
    for (let job = jobs[next++]; job !== undefined; job = jobs[next++]) {
      const seed = req.sampling.seed === RANDOM_SEED ? RANDOM_SEED : (req.sampling.seed + job.j) % RANDOM_SEED;
      const params: GenerateParams = {
        ...(job.prompt === null ? { messages: req.messages ?? [] } : typeof job.prompt === 'string' ? { prompt: job.prompt } : { promptTokens: job.prompt }),
        maxTokens: req.maxTokens ?? served.ctxPerSequence,
        sampling: { ...req.sampling, seed },
        ...(req.logprobs !== null ? { logprobs: req.logprobs, ...(req.echo ? { promptLogprobs: true } : {}) } : {}),
      };
      const pieces: string[] = req.echo && typeof job.prompt === 'string' ? [job.prompt] : [];
      const lps = req.logprobs === null ? null : new ChoiceLogprobs(req.kind, req.echo || typeof job.prompt !== 'string' ? 0 : job.prompt.length);
      const done = await stoppedGeneration(ctx, params, req.stop, { emit: (text, _w, l) => void (pieces.push(text), lps?.all.push(...l)), failedAfterStart: () => false });
      if (!done) return;
      lps?.all.push(...done.restLogprobs);
      const logprobs = lps?.whole(req.echo ? done.run.result.promptLogprobs : undefined) ?? null;
      out[job.index] = { text: pieces.join(''), logprobs, finish: done.stopHit ? 'stop' : finishReasonOf(done.run.result.stopReason), run: done.run };
    }
  };
  // As many at once as the model has sequences: more would only wait in the queue (and could fill it).
  await Promise.all(Array.from({ length: Math.max(1, Math.min(served.sequences, jobs.length)) }, one));
  if (ctx.clientGone.aborted || out.some((c) => c === null)) return;
  const choices = out as Choice[];
  const promptTokens = choices.filter((_, i) => i % req.n === 0).reduce((s, c) => s + c.run.result.promptTokens.length, 0);
  const usage = usageOf(promptTokens, choices.reduce((s, c) => s + c.run.result.tokens.length, 0));
  const last = choices[choices.length - 1] as Choice;
  const body = completionObject(req.kind, meta, '', 'stop', usage, last.run.extras) as { choices: object[] };
  body.choices = choices.map((c, index) => ({ ...((completionObject(req.kind, meta, c.text, c.finish, usage, c.run.extras, [], c.logprobs) as { choices: object[] }).choices[0] as object), index }));
  sendJson(ctx.res, 200, body);
}
