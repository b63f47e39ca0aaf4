// A request's prompt as tokens: raw text, the model's chat template, or (with tools) the model's
// Jinja template rendered here, in the worker, since it is untrusted (in a bounded process:
// template-render.ts).
import type { ChatPromptParams, ChatPromptResult, GenerateParams } from '../shared/worker-protocol.js';
import type { NativeModel } from '../native/addon.js';
import { WorkerError } from './worker-error.js';
import { ChatTemplateError, needsToolRendering } from './tool-template.js';
import { renderToolChatBounded } from './template-render.js';
import { infillTokens } from './infill-tokens.js';

/**
 * The template chats on a model without one are rendered with: llama-server's default, one of
 * llama.cpp's built-in templates (applyChatTemplate takes its name).
 */
export const FALLBACK_CHAT_TEMPLATE = 'chatml';

/**
 * A chat's prompt as text: the model's Jinja template rendered here (tools or tool turns), else
 * llama.cpp's built-in template matcher (ChatML when the model has none). The one rendering both
 * a generation and llama-server's /apply-template see.
 */
export async function chatPromptText(model: NativeModel, chat: ChatPromptParams): Promise<string> {
  if (needsToolRendering(chat.messages, chat.tools)) return await toolPromptText(model, chat);
  try {
    return model.applyChatTemplate(chat.messages, chat.addGenerationPrompt, model.info().chatTemplate ? undefined : FALLBACK_CHAT_TEMPLATE);
  } catch (e) {
    throw new WorkerError('CHAT_TEMPLATE', (e as Error).message);
  }
}

/**
 * A rendered chat prompt's tokens. The rendered template carries its own special tokens as text;
 * a Jinja template that writes bos_token itself must not get a second one from the tokenizer.
 */
function chatTextTokens(model: NativeModel, text: string, chat: Pick<ChatPromptParams, 'messages' | 'tools'>): number[] {
  const bos = bosText(model);
  const addSpecial = !needsToolRendering(chat.messages, chat.tools) || !(bos !== '' && text.startsWith(bos));
  return Array.from(model.tokenize(text, addSpecial, true));
}

/** The prompt chat turns render to and how many tokens a generation of them is given (/apply-template, count_tokens, input_tokens). */
export async function chatPromptOf(model: NativeModel, chat: ChatPromptParams): Promise<ChatPromptResult> {
  const prompt = await chatPromptText(model, chat);
  return { prompt, tokens: chatTextTokens(model, prompt, chat).length };
}

/** Prompt tokens for a request: raw text with BOS as the vocab asks, or the chat template (ChatML when the model has none). */
export async function promptTokensOf(model: NativeModel, params: GenerateParams): Promise<number[]> {
  // No turns is a chat too (Anthropic's /v1/messages with an empty list): the template's opening of the assistant's turn.
  if (params.messages) {
    const chat = { messages: params.messages, ...(params.tools ? { tools: params.tools } : {}) };
    return chatTextTokens(model, await chatPromptText(model, { ...chat, addGenerationPrompt: true }), chat);
  }
  if (params.infill) return infillTokens(model.info(), (t) => Array.from(model.tokenize(t, false, false)), params.infill, params.prompt ?? '');
  // Ids outside the vocabulary are refused by the native side (BAD_ARGUMENT, a 400).
  if (params.promptTokens && params.promptTokens.length > 0) return params.promptTokens;
  return Array.from(model.tokenize(params.prompt ?? '', true, false));
}

const piece = (model: NativeModel, id: number): string => (id >= 0 ? model.tokenToPiece(id, true).toString('utf8') : '');
const bosText = (model: NativeModel): string => piece(model, model.info().bos);

/** Tools, tool calls or tool results: the model's Jinja template rendered here, in the worker (it is untrusted). */
async function toolPromptText(model: NativeModel, chat: ChatPromptParams): Promise<string> {
  const info = model.info();
  const template = info.chatTemplate;
  if (!template) throw new WorkerError('CHAT_TEMPLATE', 'the model has no chat template');
  const tokens = { bos: piece(model, info.bos), eos: piece(model, info.eos) };
  try {
    return await renderToolChatBounded({ template, messages: chat.messages, tools: chat.tools ?? [], tokens, addGenerationPrompt: chat.addGenerationPrompt });
  } catch (e) {
    if (e instanceof ChatTemplateError) throw new WorkerError('CHAT_TEMPLATE', e.message);
    throw e;
  }
}
