// One reply of a conversation, kept on disk while it is written, so a crash of the process loses
// nothing that was acknowledged: the conversation with the user's message is saved before the
// generation is accepted, the reply so far is saved as it streams (at most CHECKPOINT_MS behind,
// marked `streaming` so the next start knows it was cut off), and the finished turn is saved
// before generation-done is sent. Writes are queued: an older checkpoint never lands after a newer save.
import type { Conversation, ConversationMessage } from '../shared/api.js';
import type { GenerationResult } from '../shared/worker-protocol.js';
import { isConversation, type ConversationStore } from './conversations.js';

/** How far the saved reply may lag behind the streamed one: a write a second, whatever the token rate. */
export const CHECKPOINT_MS = 1000;

export class KeptTurn {
  private text = '';
  private timer: ReturnType<typeof setTimeout> | null = null;
  private queue: Promise<void> = Promise.resolve();
  private ended = false;

  private constructor(
    private readonly store: ConversationStore,
    private readonly conversation: Conversation,
  ) {}

  /** Checks the conversation and saves it with the reply begun (empty, streaming); resolves once that is durable. */
  static async begin(store: ConversationStore, c: unknown): Promise<KeptTurn> {
    if (!isConversation(c)) throw new TypeError('conversation: not a conversation object');
    store.fileOf(c.id);
    const t = new KeptTurn(store, { ...c, messages: c.messages.filter((m) => m.streaming !== true) });
    await t.write({ role: 'assistant', content: '', streaming: true });
    return t;
  }

  token(text: string): void {
    this.text += text;
    if (this.timer || this.ended) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.ended) void this.write({ role: 'assistant', content: this.text, streaming: true }).catch(() => undefined);
    }, CHECKPOINT_MS);
  }

  /** The finished reply, as the renderer shows it (the result's text, else what streamed), with its figures. */
  done(result: GenerationResult): Promise<void> {
    return this.end({
      role: 'assistant',
      content: result.text || this.text,
      stats: { ttftMs: result.timings.ttftMs, decodeTokS: result.timings.decodeTokS, tokens: result.tokens.length },
    });
  }

  /** The reply failed or its worker died: what streamed is kept, marked interrupted; an empty reply is dropped. */
  failed(): Promise<void> {
    return this.end(this.text === '' ? null : { role: 'assistant', content: this.text, interrupted: true });
  }

  private end(reply: ConversationMessage | null): Promise<void> {
    this.ended = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    return this.write(reply);
  }

  private write(reply: ConversationMessage | null): Promise<void> {
    const c = this.conversation;
    const saved: Conversation = { ...c, messages: reply ? [...c.messages, reply] : c.messages, updatedAt: new Date().toISOString() };
    const next = this.queue.then(() => this.store.save(saved));
    this.queue = next.catch(() => undefined);
    return next;
  }
}
