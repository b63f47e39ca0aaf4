// POST /v1/responses: a chat turn (chat-run.ts) answered as OpenAI's Responses API answers it,
// at once or as its event stream: response.created and response.in_progress, the message item
// and its output_text part added, a response.output_text.delta per piece of text, their .done
// events, then each function call as an item with its arguments, then response.completed (or
// response.incomplete when the token limit ended it). The status line goes out with the first
// text, so a refusal before then (queue full, prompt too long) keeps its own status.
import { generationDefaults } from './generation-defaults.js';
import type { ApiSamplingDefaults } from '../shared/api-defaults.js';
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { ApiBackend } from './backend.js';
import { prepareChat, runChatTurn, type ChatTurn } from './chat-run.js';
import { sendJson } from './http-reply.js';
import { validateResponsesRequest, type ResponsesEcho } from './responses-request.js';
import { ResponseEvents, functionCallItem, messageItem, responseObject, textPart, type OutputItem, type ResponseIds } from './responses-shape.js';
import { SSE_HEADERS } from './sse.js';
import { writerOf } from './stopped-generation.js';

export interface ResponsesContext {
  backend: ApiBackend;
  res: ServerResponse;
  clientGone: AbortSignal;
  noteIgnored: (names: string[]) => void;
  /** The server's sampling defaults for fields the request does not set (OpenAI's when absent). */
  defaults?: ApiSamplingDefaults;
}

const hex = (n: number) => randomUUID().replace(/-/g, '').slice(0, n);

/** The finished answer's output items: the message (unless the turn is only calls), then the calls. */
function outputOf(ids: ResponseIds, text: string, turn: ChatTurn): OutputItem[] {
  const calls = turn.calls.map((c) => functionCallItem(c, 'completed'));
  return text === '' && calls.length > 0 ? calls : [messageItem(ids.messageId, text, 'completed'), ...calls];
}

/** The stream's events, written as the turn produces text and when it ends. */
class ResponseStream {
  private readonly ev = new ResponseEvents();
  private started = false;
  private messageOpen = false;
  private text = '';

  constructor(
    private readonly res: ServerResponse,
    private readonly ids: ResponseIds,
    private readonly echo: ResponsesEcho,
  ) {}

  begin(write: (s: string) => void): void {
    if (this.started) return;
    this.started = true;
    this.res.writeHead(200, SSE_HEADERS);
    const response = responseObject(this.ids, this.echo, 'in_progress', [], null);
    write(this.ev.event('response.created', { response }));
    write(this.ev.event('response.in_progress', { response }));
  }

  delta(text: string, write: (s: string) => void): void {
    this.begin(write);
    const at = { item_id: this.ids.messageId, output_index: 0, content_index: 0 };
    if (!this.messageOpen) {
      this.messageOpen = true;
      write(this.ev.event('response.output_item.added', { output_index: 0, item: messageItem(this.ids.messageId, null, 'in_progress') }));
      write(this.ev.event('response.content_part.added', { ...at, part: textPart('') }));
    }
    this.text += text;
    write(this.ev.event('response.output_text.delta', { ...at, delta: text, logprobs: [] }));
  }

  failed(e: Parameters<ResponseEvents['error']>[0], write: (s: string) => void): boolean {
    if (!this.started) return false;
    write(this.ev.error(e));
    return true;
  }

  finish(turn: ChatTurn, write: (s: string) => void): void {
    this.begin(write);
    if (turn.content !== '' || (turn.calls.length === 0 && !this.messageOpen)) this.delta(turn.content, write);
    const output = outputOf(this.ids, this.text, turn);
    if (this.messageOpen) {
      const at = { item_id: this.ids.messageId, output_index: 0, content_index: 0 };
      write(this.ev.event('response.output_text.done', { ...at, text: this.text, logprobs: [] }));
      write(this.ev.event('response.content_part.done', { ...at, part: textPart(this.text) }));
      write(this.ev.event('response.output_item.done', { output_index: 0, item: output[0] }));
    }
    const first = this.messageOpen ? 1 : 0;
    for (const [k, c] of turn.calls.entries()) {
      const output_index = first + k;
      const item = functionCallItem(c, 'completed');
      write(this.ev.event('response.output_item.added', { output_index, item: functionCallItem(c, 'in_progress') }));
      write(this.ev.event('response.function_call_arguments.delta', { item_id: item.id, output_index, delta: item.arguments }));
      write(this.ev.event('response.function_call_arguments.done', { item_id: item.id, output_index, name: item.name, arguments: item.arguments }));
      write(this.ev.event('response.output_item.done', { output_index, item }));
    }
    const status = turn.finish === 'length' ? 'incomplete' : 'completed';
    write(this.ev.event(`response.${status}`, { response: responseObject(this.ids, this.echo, status, output, turn.usage, turn.extras) }));
    this.res.end();
  }
}

export async function handleResponses(body: unknown, ctx: ResponsesContext): Promise<void> {
  const { gen, echo } = validateResponsesRequest(body, generationDefaults(ctx.defaults));
  ctx.noteIgnored(gen.ignored);
  const prepared = await prepareChat(gen, ctx.backend);
  const ids: ResponseIds = { id: `resp_${hex(32)}`, messageId: `msg_${hex(32)}`, createdAt: Math.floor(Date.now() / 1000), model: prepared.served.id };
  if (!gen.stream) {
    const turn = await runChatTurn(prepared, gen, ctx, null);
    if (!turn) return;
    const status = turn.finish === 'length' ? 'incomplete' : 'completed';
    return sendJson(ctx.res, 200, responseObject(ids, echo, status, outputOf(ids, turn.content, turn), turn.usage, turn.extras));
  }
  const stream = new ResponseStream(ctx.res, ids, echo);
  const turn = await runChatTurn(prepared, gen, ctx, { text: (t, write) => stream.delta(t, write), failedAfterStart: (e, write) => stream.failed(e, write) });
  if (turn) stream.finish(turn, writerOf(ctx.res));
}
