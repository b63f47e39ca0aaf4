// Conversations: the current one, the saved list, streaming of the assistant's reply. A
// conversation in completion mode (base models) is one running text: the user's parts and the
// model's continuations, each continuation generated from everything before it.
import type { ChatMode, Conversation } from '../../src-main/shared/api.js';
import type { ChatMessage, GenerationResult, TokenEvent } from '../../src-main/shared/worker-protocol.js';
import { DEFAULT_SAMPLING } from '../../src-main/shared/settings/run-settings.js';
import { getApi } from '../api.js';
import { chooseMode, completionText } from '../lib/chat-mode.js';
import { errorText, newId, type Slice } from './types.js';

export interface ChatSlice {
  conversations: Conversation[];
  current: Conversation;
  /** requestId of the reply being streamed, with the index of its message. */
  streaming: { requestId: string; index: number } | null;
  maxTokens: number;
  chatError: string | null;
  setSystem(text: string): void;
  setMaxTokens(n: number): void;
  /** The user's choice of mode for the current conversation (remembered with it). */
  setMode(mode: ChatMode): void;
  newConversation(): void;
  selectConversation(id: string): void;
  refreshConversations(): Promise<void>;
  /** Chat: send a message. Completion: append the text (may be empty to continue) and continue it. */
  send(text: string): Promise<void>;
  stop(): Promise<void>;
  onToken(requestId: string, token: TokenEvent): void;
  onGenerationDone(requestId: string, result: GenerationResult): void;
  onGenerationError(requestId: string, message: string): void;
}

export function emptyConversation(modelPath = ''): Conversation {
  return { id: newId('conv'), title: 'New conversation', modelPath, system: '', messages: [], updatedAt: new Date().toISOString() };
}

/** The turns sent to the model: system prompt first (when set), then the history (a reply cut off before its first token is no turn). */
export function turnsOf(c: Conversation): ChatMessage[] {
  const turns: ChatMessage[] = c.system.trim() ? [{ role: 'system', content: c.system }] : [];
  for (const m of c.messages) if (m.role !== 'assistant' || m.content !== '' || !m.interrupted) turns.push({ role: m.role, content: m.content });
  return turns;
}

function titleOf(text: string): string {
  const t = text.trim().replace(/\s+/g, ' ');
  return t.length > 48 ? `${t.slice(0, 47)}…` : t || 'New conversation';
}

export const createChatSlice: Slice<ChatSlice> = (set, get) => {
  const patchCurrent = (fn: (c: Conversation) => Conversation): void => set({ current: fn(get().current) });
  const save = async (): Promise<void> => {
    try {
      await getApi().saveConversation(get().current);
      await get().refreshConversations();
    } catch (e) {
      set({ chatError: `could not save the conversation: ${errorText(e)}` });
    }
  };
  return {
    conversations: [],
    current: emptyConversation(),
    streaming: null,
    maxTokens: 256,
    chatError: null,
    setSystem: (system) => patchCurrent((c) => ({ ...c, system })),
    setMaxTokens: (maxTokens) => set({ maxTokens: Number.isFinite(maxTokens) && maxTokens > 0 ? Math.floor(maxTokens) : 1 }),
    setMode: (mode) => {
      if (get().streaming) return;
      patchCurrent((c) => ({ ...c, mode, modeAuto: false }));
      if (get().current.messages.length > 0) void save();
    },
    newConversation: () => set({ current: emptyConversation(get().engine.model?.path ?? ''), chatError: null }),
    selectConversation: (id) => {
      const c = get().conversations.find((x) => x.id === id);
      if (c && !get().streaming) set({ current: c, chatError: null });
    },
    refreshConversations: async () => {
      try {
        const list = await getApi().listConversations();
        set({ conversations: [...list].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)) });
      } catch (e) {
        set({ chatError: errorText(e) });
      }
    },
    send: async (text) => {
      if (get().streaming) return;
      const before = get().current;
      const choice = chooseMode(before, get().engine.model);
      const completion = choice.mode === 'completion';
      // A completion may continue the text as it stands (nothing typed); whitespace is text there.
      if (completion ? text === '' && completionText(before) === '' : !text.trim()) return;
      const requestId = newId('gen');
      const convo: Conversation = {
        ...before,
        title: before.messages.length || !text.trim() ? before.title : titleOf(text),
        modelPath: get().engine.model?.path ?? before.modelPath,
        messages: text === '' ? before.messages : [...before.messages, { role: 'user', content: text }],
        updatedAt: new Date().toISOString(),
        // Remembered from the first message on, so the conversation keeps its mode whatever model is loaded later.
        mode: choice.mode,
        modeAuto: choice.auto,
      };
      set({
        current: { ...convo, messages: [...convo.messages, { role: 'assistant', content: '' }] },
        streaming: { requestId, index: convo.messages.length },
        chatError: null,
      });
      try {
        // The host keeps the conversation: the user's message is saved when the call resolves, the reply as it streams.
        if (completion) await getApi().complete(requestId, completionText(convo), DEFAULT_SAMPLING, get().maxTokens, convo);
        else await getApi().generate(requestId, turnsOf(convo), DEFAULT_SAMPLING, get().maxTokens, convo);
      } catch (e) {
        get().onGenerationError(requestId, errorText(e));
      }
    },
    stop: async () => {
      try {
        await getApi().stop();
      } catch (e) {
        set({ chatError: errorText(e) });
      }
    },
    onToken: (requestId, token) => {
      const s = get().streaming;
      if (!s || s.requestId !== requestId) return;
      patchCurrent((c) => {
        const messages = c.messages.slice();
        const m = messages[s.index];
        if (m) messages[s.index] = { ...m, content: m.content + token.text };
        return { ...c, messages };
      });
    },
    onGenerationDone: (requestId, result) => {
      const s = get().streaming;
      if (!s || s.requestId !== requestId) return;
      patchCurrent((c) => {
        const messages = c.messages.slice();
        const m = messages[s.index];
        if (m) {
          messages[s.index] = {
            ...m,
            content: result.text || m.content,
            stats: { ttftMs: result.timings.ttftMs, decodeTokS: result.timings.decodeTokS, tokens: result.tokens.length },
          };
        }
        return { ...c, messages, updatedAt: new Date().toISOString() };
      });
      set({ streaming: null });
      void save();
    },
    onGenerationError: (requestId, message) => {
      const s = get().streaming;
      if (!s || s.requestId !== requestId) return;
      // Keep what streamed so far, marked interrupted (as the host saved it); drop an empty assistant turn so the history stays valid.
      patchCurrent((c) => ({
        ...c,
        messages: c.messages.filter((m, i) => i !== s.index || m.content !== '').map((m, i) => (i === s.index ? { ...m, interrupted: true } : m)),
      }));
      set({ streaming: null, chatError: message });
    },
  };
};
