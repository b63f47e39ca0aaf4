// POST /v1/messages: a chat turn (chat-run.ts) answered as Anthropic's Messages API answers it,
// at once or as its event stream: message_start, a text block (content_block_start, a
// text_delta per piece, content_block_stop), each tool call as a tool_use block with its input as
// one input_json_delta, then message_delta (stop reason, usage) and message_stop. The status
// line goes out with the first text, so a refusal before then keeps its own status.
import { generationDefaults } from './generation-defaults.js';
import type { ApiSamplingDefaults } from '../shared/api-defaults.js';
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { ApiBackend } from './backend.js';
import { prepareChat, runChatTurn, type ChatTurn } from './chat-run.js';
import type { ApiError } from './errors.js';
import { sendJson } from './http-reply.js';
import { validateMessagesRequest } from './messages-request.js';
import { anthropicErrorBody, messageEvent, messageObject, stopReasonOf, toolUseBlock, type MessageIds } from './messages-shape.js';
import { usageOf } from './response-shape.js';
import { SSE_HEADERS } from './sse.js';
import { preparedTokenCount } from './token-count-routes.js';
import { writerOf } from './stopped-generation.js';

export interface MessagesContext {
  backend: ApiBackend;
  res: ServerResponse;
  clientGone: AbortSignal;
  noteIgnored: (names: string[]) => void;
  /** The server's sampling defaults for fields the request does not set (OpenAI's when absent). */
  defaults?: ApiSamplingDefaults;
}

/** The finished message's blocks: the text (unless the turn is only calls), then the calls. */
function contentOf(text: string, turn: ChatTurn): object[] {
  const uses = turn.calls.map(toolUseBlock);
  return text === '' && uses.length > 0 ? uses : [{ type: 'text', text }, ...uses];
}

class MessageStream {
  private started = false;
  private textOpen = false;
  private blocks = 0;

  constructor(
    private readonly res: ServerResponse,
    private readonly ids: MessageIds,
    /** The prompt's tokens, counted before the turn ran: message_start's usage (Anthropic sends them there). */
    private readonly inputTokens: number,
  ) {}

  begin(write: (s: string) => void): void {
    if (this.started) return;
    this.started = true;
    this.res.writeHead(200, SSE_HEADERS);
    write(messageEvent('message_start', { message: messageObject(this.ids, [], null, usageOf(this.inputTokens, 0)) }));
    write(messageEvent('ping'));
  }

  delta(text: string, write: (s: string) => void): void {
    this.begin(write);
    if (!this.textOpen) {
      this.textOpen = true;
      write(messageEvent('content_block_start', { index: this.blocks++, content_block: { type: 'text', text: '' } }));
    }
    write(messageEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }));
  }

  failed(e: ApiError, write: (s: string) => void): boolean {
    if (!this.started) return false;
    write(messageEvent('error', { error: (anthropicErrorBody(e) as { error: object }).error }));
    return true;
  }

  finish(turn: ChatTurn, write: (s: string) => void): void {
    this.begin(write);
    if (turn.content !== '' || (turn.calls.length === 0 && !this.textOpen)) this.delta(turn.content, write);
    if (this.textOpen) write(messageEvent('content_block_stop', { index: 0 }));
    for (const use of turn.calls.map(toolUseBlock)) {
      const index = this.blocks++;
      write(messageEvent('content_block_start', { index, content_block: { ...use, input: {} } }));
      write(messageEvent('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(use.input) } }));
      write(messageEvent('content_block_stop', { index }));
    }
    const delta = { stop_reason: stopReasonOf(turn.finish, turn.stopString), stop_sequence: turn.stopString };
    write(messageEvent('message_delta', { delta, usage: { input_tokens: turn.usage.prompt_tokens, output_tokens: turn.usage.completion_tokens }, ramforge: turn.extras }));
    write(messageEvent('message_stop'));
    this.res.end();
  }
}

export async function handleMessages(body: unknown, ctx: MessagesContext): Promise<void> {
  const gen = validateMessagesRequest(body, generationDefaults(ctx.defaults));
  ctx.noteIgnored(gen.ignored);
  const prepared = await prepareChat(gen, ctx.backend);
  const ids: MessageIds = { id: `msg_${randomUUID().replace(/-/g, '').slice(0, 24)}`, model: prepared.served.id };
  if (!gen.stream) {
    const turn = await runChatTurn(prepared, gen, ctx, null);
    if (!turn) return;
    const stop = { reason: stopReasonOf(turn.finish, turn.stopString), sequence: turn.stopString };
    return sendJson(ctx.res, 200, messageObject(ids, contentOf(turn.content, turn), stop, turn.usage, turn.extras));
  }
  const stream = new MessageStream(ctx.res, ids, await preparedTokenCount(prepared, ctx.backend));
  const turn = await runChatTurn(prepared, gen, ctx, { text: (t, write) => stream.delta(t, write), failedAfterStart: (e, write) => stream.failed(e, write) });
  if (turn) stream.finish(turn, writerOf(ctx.res));
}
