// Several choices in one request: OpenAI's `n` > 1 and, on /v1/completions, a batch of prompts
// (LangChain's completions client sends one). Each choice is its own generation; they take the
// served model's sequences together (decoded in one batch where --parallel allows) and the
// answer, sent once all are done, lists them prompt by prompt, then choice by choice, as OpenAI
// orders them, with the usage summed. With a fixed seed, choice j samples with seed + j, so the
// choices differ as they do on OpenAI. Streamed, each choice's chunks carry its index as they
// come (choices interleave, as OpenAI's do), each ends with its own finish chunk, then the usage
// (when asked) and [DONE].
import type { GenerateParams } from '../shared/worker-protocol.js';
import type { ServedModel } from './backend.js';
import type { CompletionContext } from './completion-handler.js';
import { badRequest } from './errors.js';
import { sendJson } from './http-reply.js';
import type { ApiGeneration } from './request-types.js';
import { chunkObject, completionObject, finishReasonOf, usageChunk, usageOf, type ResponseMeta } from './response-shape.js';
import { SSE_DONE, SSE_HEADERS, sseData } from './sse.js';
import { writerOf } from './stopped-generation.js';
import { stoppedGeneration } from './stopped-generation.js';
import { ChoiceLogprobs } from './logprobs-shape.js';
import type { PositionLogprobs } from '../shared/worker-protocol.js';
import { RANDOM_SEED } from './generation-defaults.js';
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
      const stream = streamed?.choice(job.index, req.echo && typeof job.prompt === 'string' ? job.prompt : '');
      const emit = stream ? (text: string, _w: unknown, l: PositionLogprobs[]) => stream.piece(text, lps ? lps.chunk(l) : undefined) : (text: string, _w: unknown, l: PositionLogprobs[]) => void (pieces.push(text), lps?.all.push(...l));
      const done = await stoppedGeneration(ctx, params, req.stop, { emit, failedAfterStart: () => false });
      if (!done) return;
      if (stream) {
        if (lps && done.restLogprobs.length > 0) stream.piece('', lps.chunk(done.restLogprobs));
        stream.finish(done.stopHit ? 'stop' : finishReasonOf(done.run.result.stopReason), done.run);
        continue;
      }
      lps?.all.push(...done.restLogprobs);
      const logprobs = lps?.whole(req.echo ? done.run.result.promptLogprobs : undefined) ?? null;
      out[job.index] = { text: pieces.join(''), logprobs, finish: done.stopHit ? 'stop' : finishReasonOf(done.run.result.stopReason), run: done.run };
    }
  };
  const streamed = req.stream ? new ChoiceStream(req, ctx, meta) : null;
  // As many at once as the model has sequences: more would only wait in the queue (and could fill it).
  await Promise.all(Array.from({ length: Math.max(1, Math.min(served.sequences, jobs.length)) }, one));
  if (streamed) return streamed.end();
  if (ctx.clientGone.aborted || out.some((c) => c === null)) return;
  const choices = out as Choice[];
  const promptTokens = choices.filter((_, i) => i % req.n === 0).reduce((s, c) => s + c.run.result.promptTokens.length, 0);
  const usage = usageOf(promptTokens, choices.reduce((s, c) => s + c.run.result.tokens.length, 0));
  const last = choices[choices.length - 1] as Choice;
  const body = completionObject(req.kind, meta, '', 'stop', usage, last.run.extras) as { choices: object[] };
  body.choices = choices.map((c, index) => ({ ...((completionObject(req.kind, meta, c.text, c.finish, usage, c.run.extras, [], c.logprobs) as { choices: object[] }).choices[0] as object), index }));
  sendJson(ctx.res, 200, body);
}

/** The streamed answer of several choices: headers once, each choice's chunks with its index, the usage summed at the end. */
class ChoiceStream {
  private readonly write: (s: string) => void;
  private promptTokens = 0;
  private completionTokens = 0;
  private last: BackendRun | null = null;
  private readonly started = new Set<number>();

  constructor(
    private readonly req: ApiGeneration,
    private readonly ctx: CompletionContext,
    private readonly meta: ResponseMeta,
  ) {
    ctx.res.writeHead(200, SSE_HEADERS);
    this.write = writerOf(ctx.res);
  }

  private send(index: number, piece: Parameters<typeof chunkObject>[2]): void {
    const c = chunkObject(this.req.kind, this.meta, piece, this.req.includeUsage) as { choices: object[] };
    c.choices = c.choices.map((x) => ({ ...x, index }));
    this.write(sseData(c));
  }

  /** A choice begins: chat's role chunk, or the echoed prompt. */
  choice(index: number, echo: string) {
    return {
      piece: (text: string, logprobs?: object) => {
        if (!this.started.has(index)) {
          this.started.add(index);
          if (this.req.kind === 'chat') this.send(index, { role: true });
          else if (echo !== '') this.send(index, { text: echo });
        }
        if (text !== '' || logprobs) this.send(index, { text, ...(logprobs ? { logprobs } : {}) });
      },
      finish: (finish: 'stop' | 'length', run: BackendRun) => {
        if (!this.started.has(index)) this.choice(index, echo).piece('');
        // Prompt tokens once per prompt: choice 0 of each.
        if (index % this.req.n === 0) this.promptTokens += run.result.promptTokens.length;
        this.completionTokens += run.result.tokens.length;
        this.last = run;
        this.send(index, { finish });
      },
    };
  }

  end(): void {
    if (this.ctx.clientGone.aborted) return;
    if (this.req.includeUsage && this.last) this.write(sseData(usageChunk(this.req.kind, this.meta, usageOf(this.promptTokens, this.completionTokens), this.last.extras)));
    this.write(SSE_DONE);
    this.ctx.res.end();
  }
}
