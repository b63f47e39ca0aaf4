// A request's prompt as tokens: raw text, the model's chat template, or (with tools) the model's
// Jinja template rendered here, in the worker, since it is untrusted (in a bounded process:
// template-render.ts).
import type { ChatMessage, GenerateParams, ToolSpec } from '../shared/worker-protocol.js';
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

/** Prompt tokens for a request: raw text with BOS as the vocab asks, or the chat template (ChatML when the model has none). */
export async function promptTokensOf(model: NativeModel, params: GenerateParams): Promise<number[]> {
  if (params.messages && params.messages.length > 0) {
    if (needsToolRendering(params.messages, params.tools)) return await toolPromptTokens(model, params.messages, params.tools ?? []);
    let text: string;
    try {
      text = model.applyChatTemplate(params.messages, true, model.info().chatTemplate ? undefined : FALLBACK_CHAT_TEMPLATE);
    } catch (e) {
      throw new WorkerError('CHAT_TEMPLATE', (e as Error).message);
    }
    // The rendered template carries its own special tokens as text.
    return Array.from(model.tokenize(text, true, true));
  }
  if (params.infill) return infillTokens(model.info(), (t) => Array.from(model.tokenize(t, false, false)), params.infill, params.prompt ?? '');
  // Ids outside the vocabulary are refused by the native side (BAD_ARGUMENT, a 400).
  if (params.promptTokens && params.promptTokens.length > 0) return params.promptTokens;
  return Array.from(model.tokenize(params.prompt ?? '', true, false));
}

/** Tools, tool calls or tool results: the model's Jinja template rendered here, in the worker (it is untrusted). */
async function toolPromptTokens(model: NativeModel, messages: ChatMessage[], tools: ToolSpec[]): Promise<number[]> {
  const info = model.info();
  const template = info.chatTemplate;
  if (!template) throw new WorkerError('CHAT_TEMPLATE', 'the model has no chat template');
  const piece = (id: number) => (id >= 0 ? model.tokenToPiece(id, true).toString('utf8') : '');
  const tokens = { bos: piece(info.bos), eos: piece(info.eos) };
  let text: string;
  try {
    text = await renderToolChatBounded({ template, messages, tools, tokens });
  } catch (e) {
    if (e instanceof ChatTemplateError) throw new WorkerError('CHAT_TEMPLATE', e.message);
    throw e;
  }
  // A template that writes bos_token itself must not get a second one from the tokenizer.
  const addSpecial = !(tokens.bos !== '' && text.startsWith(tokens.bos));
  return Array.from(model.tokenize(text, addSpecial, true));
}
