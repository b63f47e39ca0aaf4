// llama-server's /apply-template: the prompt the served model's chat template makes of a chat
// request's turns, `{"prompt": "…"}`, without generating. The body is a chat completion's,
// checked by the same validation; the turns and tools are rendered exactly as a chat generation
// renders them (chatTools), so what a client sees here is what the model would be given.
// `add_generation_prompt` (default true) leaves out the opening of the assistant's turn when false.
import type { ApiBackend } from './backend.js';
import { chatTools } from './chat-run.js';
import { optBool, type Body } from './check-value.js';
import { unavailable } from './errors.js';
import { servedFor } from './model-choice.js';
import { namesModel } from './model-id.js';
import { validateChatRequest } from './validate-request.js';

/** Fields of the body this route reads beyond a chat completion's. */
const OWN_FIELDS = new Set(['add_generation_prompt']);

export async function answerApplyTemplate(body: unknown, backend: ApiBackend, noteIgnored: (names: string[]) => void): Promise<{ prompt: string }> {
  const req = validateChatRequest(body);
  const addGenerationPrompt = optBool(body as Body, 'add_generation_prompt') ?? true;
  noteIgnored(req.ignored.filter((n) => !OWN_FIELDS.has(n)));
  await servedFor(backend, req.model, namesModel, 'GET /v1/models');
  if (!backend.applyTemplate) throw unavailable('this server cannot render chat templates', 'apply_template_unavailable');
  const { renderTools } = chatTools(req);
  const { prompt } = await backend.applyTemplate({ messages: req.messages ?? [], ...(renderTools ? { tools: renderTools } : {}), addGenerationPrompt });
  return { prompt };
}
