// Counting a request's prompt without generating: OpenAI's POST /v1/responses/input_tokens
// (openai-python's `responses.input_tokens.count`), Anthropic's POST /v1/messages/count_tokens
// and llama-server's POST /v1/chat/completions/input_tokens (a chat completion's body).
// The body is the one the generating route takes, checked by the same validation, and its turns
// and tools are prepared and rendered exactly as that route's generation would be (prepareChat,
// then the worker's chat rendering and tokenizer), so the count is the prompt a generation decodes.
import type { ApiBackend } from './backend.js';
import { prepareChat, type PreparedChat } from './chat-run.js';
import { unavailable } from './errors.js';
import type { ApiGeneration } from './request-types.js';
import { validateMessagesRequest } from './messages-request.js';
import { validateResponsesRequest } from './responses-request.js';
import { validateChatRequest } from './validate-request.js';

/** The prompt tokens of a prepared chat turn, before it runs (Anthropic's message_start tells them). */
export async function preparedTokenCount({ params }: PreparedChat, backend: ApiBackend): Promise<number> {
  if (!backend.applyTemplate) throw unavailable('this server cannot render chat templates', 'apply_template_unavailable');
  const { tokens } = await backend.applyTemplate({ messages: params.messages ?? [], ...(params.tools ? { tools: params.tools } : {}), addGenerationPrompt: true });
  return tokens;
}

type NoteIgnored = (names: string[]) => void;

/** The prompt tokens a chat generation of this checked request would be given; what it ignores is named first. */
async function countOf(gen: ApiGeneration, backend: ApiBackend, noteIgnored: NoteIgnored): Promise<number> {
  noteIgnored(gen.ignored);
  return preparedTokenCount(await prepareChat(gen, backend), backend);
}

/** OpenAI's InputTokenCountResponse. */
export async function answerInputTokens(body: unknown, backend: ApiBackend, noteIgnored: NoteIgnored): Promise<{ object: 'response.input_tokens'; input_tokens: number }> {
  return { object: 'response.input_tokens', input_tokens: await countOf(validateResponsesRequest(body).gen, backend, noteIgnored) };
}

/** Anthropic's count: `{"input_tokens"}` and nothing else (max_tokens is not needed). */
export async function answerCountTokens(body: unknown, backend: ApiBackend, noteIgnored: NoteIgnored): Promise<{ input_tokens: number }> {
  return { input_tokens: await countOf(validateMessagesRequest(body), backend, noteIgnored) };
}

/** llama-server's count for a chat completion's body: `{"input_tokens"}`. */
export async function answerChatInputTokens(body: unknown, backend: ApiBackend, noteIgnored: NoteIgnored): Promise<{ input_tokens: number }> {
  return { input_tokens: await countOf(validateChatRequest(body), backend, noteIgnored) };
}
