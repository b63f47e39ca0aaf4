// A failed generation, as the HTTP status a client should see: its own mistake (400), no model
// or a model that went away (503), or the worker dying under it (500). Pure.
import { ApiError, badRequest, serverError, unavailable } from './errors.js';

/** The native layer's words for a prompt longer than a sequence's context. */
const PROMPT_TOO_LONG = /^prompt has (\d+) tokens; (?:each sequence|the context) holds (\d+)/;
/** The native layer's words for a grammar it refused, or one that allows no token of the vocabulary. */
const BAD_GRAMMAR = /^(the grammar is|grammar must|a grammar cannot)/;
const STUCK_GRAMMAR = /^the grammar allows none of the model's tokens/;

/**
 * @param code the worker error's code (WorkerError), or undefined
 * @param crashed the worker ended on its own while this ran (not closed by an unload or a new load)
 * @param input the request's parameter that holds the prompt ('messages' or 'prompt')
 */
export function apiErrorOfWorker(code: string | undefined, message: string, crashed: boolean, input: 'messages' | 'prompt' | 'input' = 'messages'): ApiError {
  const tooLong = PROMPT_TOO_LONG.exec(message);
  if (tooLong) {
    // llama-server's error type and numbers (clients of OpenAI's API go by the status and the code).
    const details = { n_prompt_tokens: Number(tooLong[1]), n_ctx: Number(tooLong[2]) };
    return new ApiError(400, 'exceed_context_size_error', `${message}: shorten the prompt (or load the model with a larger --ctx)`, 'context_length_exceeded', input, details);
  }
  // The request's own grammar: the client's to change (STUCK_GRAMMAR comes mid-generation).
  if (STUCK_GRAMMAR.test(message)) return badRequest(message, 'grammar', 'grammar_unsatisfiable');
  if (code === 'BAD_ARGUMENT' && BAD_GRAMMAR.test(message)) return badRequest(message, 'grammar', 'invalid_grammar');
  switch (code) {
    case 'WORKER_EXITED':
      return crashed ? serverError(`the inference worker ended during the request: ${message}`, 'worker_crashed') : unavailable('the model was unloaded during the request', 'model_unloaded');
    case 'NO_MODEL':
      return unavailable('no model is loaded', 'model_not_loaded');
    case 'CHAT_TEMPLATE':
      return badRequest(`the model's chat template failed on these messages: ${message}`, 'messages', 'chat_template_failed');
    case 'EMBEDDINGS_UNAVAILABLE':
      return badRequest(message, input, 'embeddings_unavailable');
    case 'INFILL_UNSUPPORTED':
      return badRequest(message, input, 'infill_unsupported');
    case 'EMPTY_PROMPT':
      return badRequest('the prompt is empty', input, 'empty_prompt');
    case 'BAD_ARGUMENT':
      return badRequest(message, null, 'invalid_value');
    case 'BUSY':
      return unavailable(`the worker is busy: ${message}`, 'busy');
    default:
      return serverError(`the generation failed: ${message}`, code ? code.toLowerCase() : 'generation_failed');
  }
}
