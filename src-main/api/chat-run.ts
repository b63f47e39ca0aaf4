// One chat turn on the served model, whatever API asked for it (OpenAI's chat completions, its
// Responses API, Anthropic's Messages API): the model resolved, tools checked against the
// template, the generation cut at stop strings, and the answer split into text and tool calls
// (streamed text goes out as it comes until a <tool_call> begins; calls come at the end). Each
// route writes the result in its own shapes.
import { randomUUID } from 'node:crypto';
import type { GenerateParams } from '../shared/worker-protocol.js';
import type { ServedModel } from './backend.js';
import { badRequest, type ApiError } from './errors.js';
import { namesModel } from './model-id.js';
import { servedFor } from './model-choice.js';
import type { ApiGeneration } from './request-types.js';
import { finishReasonOf, usageOf, type FinishReason, type RamforgeExtras, type ToolCallOut, type Usage } from './response-shape.js';
import { stoppedGeneration, type StoppedGenerationContext } from './stopped-generation.js';
import { ToolCallSplitter, parseToolCalls, type ParsedCall } from './tool-calls.js';
import { NO_TOOL_TEMPLATE_MESSAGE, templateSupportsTools } from './tool-request.js';

/** What a chat request becomes on the served model: the worker's parameters and how its text is parsed. */
export interface PreparedChat {
  served: ServedModel;
  params: GenerateParams;
  /** Tools are declared and may be called (tool_choice is not none): the answer is parsed for calls. */
  calling: boolean;
  names: ReadonlySet<string>;
  maxCalls: number;
}

/** The tools a chat request's turns are rendered with (none: llama.cpp's built-in template matcher renders them), and whether the model may call them. */
export function chatTools(req: ApiGeneration): { calling: boolean; toolTurns: boolean; renderTools: GenerateParams['tools'] } {
  const tools = req.kind === 'chat' ? (req.tools ?? null) : null;
  const calling = tools !== null && tools.choice !== 'none';
  const toolTurns = (req.messages ?? []).some((m) => m.role === 'tool' || (m.toolCalls?.length ?? 0) > 0);
  // tool_choice none: the tools are not rendered (the model is not told of them) and nothing is parsed.
  return { calling, toolTurns, renderTools: calling ? tools.tools : toolTurns ? [] : undefined };
}

export async function prepareChat(req: ApiGeneration, backend: StoppedGenerationContext['backend']): Promise<PreparedChat> {
  const served = await servedFor(backend, req.model, namesModel, 'GET /v1/models');
  const { calling, toolTurns, renderTools } = chatTools(req);
  // The check is on the template's text; it is rendered (interpreted) only in the worker.
  if ((calling || toolTurns) && !templateSupportsTools(served.facts?.chatTemplate)) throw badRequest(NO_TOOL_TEMPLATE_MESSAGE, calling ? 'tools' : 'messages', 'tools_unsupported');
  const params = generateParamsOf(req, served.ctxPerSequence, renderTools);
  const names = new Set(calling ? (renderTools ?? []).map((t) => t.name) : []);
  return { served, params, calling, names, maxCalls: req.tools?.parallel === false ? 1 : Infinity };
}

/** The worker's request: the turns or the prompt (with a suffix: filled in the middle), the limit, the log-probabilities asked for. */
function generateParamsOf(req: ApiGeneration, ctxPerSequence: number, renderTools: GenerateParams['tools']): GenerateParams {
  const input: Omit<GenerateParams, 'maxTokens' | 'sampling'> =
    req.kind === 'chat'
      ? { messages: req.messages ?? [], ...(renderTools ? { tools: renderTools } : {}) }
      : req.promptTokens
        ? { promptTokens: req.promptTokens }
        : req.suffix !== null
          ? { prompt: '', infill: { prefix: req.prompt ?? '', suffix: req.suffix, extra: [] } }
          : { prompt: req.prompt ?? '' };
  return {
    ...input,
    // Without a limit, the answer may fill what the sequence's context leaves.
    maxTokens: req.maxTokens ?? ctxPerSequence,
    sampling: req.sampling,
    ...(req.logprobs !== null ? { logprobs: req.logprobs, ...(req.echo ? { promptLogprobs: true } : {}) } : {}),
  };
}

/** A parsed call with the id the client sends back with its result. */
export function callOut(c: ParsedCall): ToolCallOut {
  return { id: `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`, type: 'function', function: { name: c.name, arguments: c.arguments } };
}

export interface ChatTurn {
  /** The text outside tool calls ('' when there is none; streamed: only what was not yet sent). */
  content: string;
  calls: ToolCallOut[];
  finish: FinishReason;
  /** The stop string the answer ended at, null when none did. */
  stopString: string | null;
  usage: Usage;
  extras: RamforgeExtras;
}

export interface ChatTurnStream {
  /** Text that can go out now (never part of a tool call); '' never comes. */
  text(delta: string, write: (s: string) => void): void;
  /** The generation failed after `text` began the answer: write the error (true), or nothing began (false: thrown). */
  failedAfterStart(err: ApiError, write: (s: string) => void): boolean;
}

/** The stop string the answer ended at: the first in the generated text (the matcher cut the answer right before it). */
function stopStringOf(raw: string, stops: readonly string[]): string | null {
  let best: { at: number; s: string } | null = null;
  for (const s of stops) {
    const at = raw.indexOf(s);
    if (at >= 0 && (best === null || at < best.at)) best = { at, s };
  }
  return best?.s ?? stops[0] ?? null;
}

/** Null when the client went away. `stream` null: the whole answer comes back in `content`. */
export async function runChatTurn(p: PreparedChat, req: ApiGeneration, ctx: StoppedGenerationContext, stream: ChatTurnStream | null): Promise<ChatTurn | null> {
  const splitter = p.calling && stream ? new ToolCallSplitter() : null;
  const pieces: string[] = [];
  const done = await stoppedGeneration(ctx, p.params, req.stop, {
    emit: (text, write) => {
      if (!stream) return void pieces.push(text);
      const out = splitter ? splitter.push(text) : text;
      if (out !== '') stream.text(out, write);
    },
    failedAfterStart: (err, write) => (stream ? stream.failedAfterStart(err, write) : false),
  });
  if (!done) return null;
  const { run } = done;
  const stopped: FinishReason = done.stopHit ? 'stop' : finishReasonOf(run.result.stopReason);
  const parsed = splitter ? splitter.finish(p.names, p.maxCalls) : p.calling ? parseToolCalls(pieces.join(''), p.names, p.maxCalls) : { content: pieces.join(''), calls: [] };
  const calls = parsed.calls.map(callOut);
  return {
    content: parsed.content ?? '',
    calls,
    finish: calls.length > 0 ? 'tool_calls' : stopped,
    stopString: done.stopHit ? stopStringOf(run.result.text, req.stop) : null,
    usage: usageOf(run.result.promptTokens.length, run.result.tokens.length),
    extras: run.extras,
  };
}
