// The part of an answer every API route streams the same way, whatever it writes (OpenAI's
// server-sent events, Ollama's NDJSON): the generation on the worker cut at the request's stop
// strings, ended when the client goes away, with writes bounded for a client that does not read.
import type { ServerResponse } from 'node:http';
import type { GenerateParams, PositionLogprobs } from '../shared/worker-protocol.js';
import type { ApiBackend } from './backend.js';
import { ApiError, asApiError } from './errors.js';
import { StopMatcher } from './stop-strings.js';

/** Bytes waiting for a client that does not read; past this it is treated as gone. */
const MAX_UNREAD_BYTES = 8 * 1024 * 1024;

export interface StoppedGenerationContext {
  backend: ApiBackend;
  res: ServerResponse;
  /** Aborts when the client goes away. */
  clientGone: AbortSignal;
}

export interface StoppedGeneration {
  run: Awaited<ReturnType<ApiBackend['generate']>>;
  /** The answer ended at a stop string (its text is not emitted). */
  stopHit: boolean;
  /** Log-probabilities of the last tokens, whose text was empty (a special token, a piece of a character): no emit carried them. */
  restLogprobs: PositionLogprobs[];
}

export interface StreamCallbacks {
  /**
   * Text to pass on (never the stop string itself); '' never comes. `logprobs`: those of the
   * tokens that came since the last emit (the request asked for them), the text held back for a
   * possible stop string included; the tokens of a stop string that matched never come.
   */
  emit(text: string, write: (s: string) => void, logprobs: PositionLogprobs[]): void;
  /** The generation failed after `emit` began an answer: write the error in the route's format (true), or not begun (false: thrown). */
  failedAfterStart(err: ApiError, write: (s: string) => void): boolean;
}

/** Null when the client went away (nothing more is to be written). */
export async function stoppedGeneration(ctx: StoppedGenerationContext, params: GenerateParams, stops: readonly string[], cb: StreamCallbacks): Promise<StoppedGeneration | null> {
  const { res } = ctx;
  const stop = new AbortController();
  const onGone = (): void => stop.abort();
  if (ctx.clientGone.aborted) return null;
  ctx.clientGone.addEventListener('abort', onGone, { once: true });
  const matcher = new StopMatcher([...stops]);
  const write = (s: string): void => {
    if (res.destroyed) return;
    res.write(s);
    if (res.writableLength > MAX_UNREAD_BYTES) {
      res.destroy();
      stop.abort();
    }
  };
  let pending: PositionLogprobs[] = [];
  const emit = (text: string): void => {
    if (text === '') return;
    const logprobs = pending;
    pending = [];
    cb.emit(text, write, logprobs);
  };
  let run;
  try {
    run = await ctx.backend.generate(
      params,
      (t) => {
        if (t.logprobs) pending.push(t.logprobs);
        const step = matcher.push(t.text);
        emit(step.emit);
        if (step.stopped) stop.abort();
      },
      stop.signal,
    );
  } catch (e) {
    if (ctx.clientGone.aborted) return null;
    const err = asApiError(e);
    if (!cb.failedAfterStart(err, write)) throw err;
    res.end();
    return null;
  } finally {
    ctx.clientGone.removeEventListener('abort', onGone);
  }
  if (ctx.clientGone.aborted || res.destroyed) return null;
  emit(matcher.flush());
  return { run, stopHit: matcher.hit, restLogprobs: matcher.hit ? [] : pending };
}

/** A writer for what comes after the generation (the final chunk, the usage line). */
export function writerOf(res: ServerResponse): (s: string) => void {
  return (s) => {
    if (!res.destroyed) res.write(s);
  };
}
