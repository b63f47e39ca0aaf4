import { describe, expect, it } from 'vitest';
import { apiErrorOfWorker } from './worker-errors.js';
import { errorBody } from './errors.js';

const of = (code: string | undefined, message: string, crashed = false, input: 'messages' | 'prompt' | 'input' = 'prompt') => {
  const e = apiErrorOfWorker(code, message, crashed, input);
  return [e.status, e.type, e.code, e.param];
};

describe('apiErrorOfWorker', () => {
  it("a prompt longer than the context is the client's: 400 on the parameter that holds it, from either decode path, as llama-server's exceed_context_size_error with n_prompt_tokens and n_ctx", () => {
    expect(of('DECODE_FAILED', 'prompt has 302 tokens; each sequence holds 256')).toEqual([400, 'exceed_context_size_error', 'context_length_exceeded', 'prompt']);
    expect(of('DECODE_FAILED', 'prompt has 302 tokens; the context holds 256', false, 'messages')).toEqual([400, 'exceed_context_size_error', 'context_length_exceeded', 'messages']);
    const { error } = errorBody(apiErrorOfWorker('DECODE_FAILED', 'prompt has 302 tokens; each sequence holds 256', false, 'messages'));
    expect(error).toMatchObject({ type: 'exceed_context_size_error', code: 'context_length_exceeded', param: 'messages', n_prompt_tokens: 302, n_ctx: 256 });
    expect(error.message).toMatch(/^prompt has 302 tokens/);
  });

  it('embeddings while the weights stream are a 400 on input that says why', () => {
    expect(of('EMBEDDINGS_UNAVAILABLE', 'embeddings are not available while this model streams', false, 'input')).toEqual([400, 'invalid_request_error', 'embeddings_unavailable', 'input']);
  });

  it('a worker that ended: 500 when it crashed, 503 when it was closed (unload, another load)', () => {
    expect(of('WORKER_EXITED', 'killed', true)).toEqual([500, 'server_error', 'worker_crashed', null]);
    expect(of('WORKER_EXITED', 'exited', false)).toEqual([503, 'unavailable_error', 'model_unloaded', null]);
  });

  it("a grammar llama.cpp refuses, or one no token can follow, is the client's: 400 on grammar", () => {
    expect(of('BAD_ARGUMENT', "the grammar is not valid GBNF (with a 'root' rule): failed to parse grammar")).toEqual([400, 'invalid_request_error', 'invalid_grammar', 'grammar']);
    expect(of('BAD_ARGUMENT', 'a grammar cannot be used with a draft model (speculative decoding)')).toEqual([400, 'invalid_request_error', 'invalid_grammar', 'grammar']);
    expect(of('DECODE_FAILED', "the grammar allows none of the model's tokens at this point (it asks for text the vocabulary cannot spell)")).toEqual([400, 'invalid_request_error', 'grammar_unsatisfiable', 'grammar']);
    expect(of('BAD_ARGUMENT', 'temperature must be a number')).toEqual([400, 'invalid_request_error', 'invalid_value', null]);
  });

  it('the rest by code; unknown codes are 500 with the code kept', () => {
    expect(of('NO_MODEL', 'x')).toEqual([503, 'unavailable_error', 'model_not_loaded', null]);
    expect(of('CHAT_TEMPLATE', 'bad', false, 'messages')).toEqual([400, 'invalid_request_error', 'chat_template_failed', 'messages']);
    expect(of('EMPTY_PROMPT', 'x')).toEqual([400, 'invalid_request_error', 'empty_prompt', 'prompt']);
    expect(of('BUSY', 'x')).toEqual([503, 'unavailable_error', 'busy', null]);
    expect(of('DECODE_FAILED', 'llama_decode failed (1)')).toEqual([500, 'server_error', 'decode_failed', null]);
    expect(of(undefined, 'x')).toEqual([500, 'server_error', 'generation_failed', null]);
  });
});
