// Errors in OpenAI's shape, `{error: {message, type, param, code}}`, each with the HTTP status
// that goes with it. Clients (the openai package among them) choose their exception by the
// status and show `message`, so every message says what to change. The `type` names are
// llama-server's, which local OpenAI clients already know. Pure.

export type ApiErrorType =
  | 'invalid_request_error'
  /** llama-server's type for a prompt longer than a sequence's context (a 400, with n_prompt_tokens and n_ctx). */
  | 'exceed_context_size_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'server_error'
  | 'unavailable_error'
  /** llama-server's 501: a route it has, turned off (GET /metrics without --metrics). */
  | 'not_supported_error';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: ApiErrorType,
    message: string,
    readonly code: string | null = null,
    readonly param: string | null = null,
    /** Numbers the error object carries beside its four fields (llama-server's n_prompt_tokens, n_ctx). */
    readonly details: Readonly<Record<string, number>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ApiErrorBody {
  error: { message: string; type: ApiErrorType; param: string | null; code: string | null; [detail: string]: unknown };
}

export function errorBody(e: ApiError): ApiErrorBody {
  return { error: { message: e.message, type: e.type, param: e.param, code: e.code, ...e.details } };
}

export const badRequest = (message: string, param: string | null = null, code = 'invalid_request'): ApiError =>
  new ApiError(400, 'invalid_request_error', message, code, param);

export const notFound = (message: string, code = 'not_found'): ApiError => new ApiError(404, 'not_found_error', message, code);

export const unavailable = (message: string, code = 'unavailable'): ApiError => new ApiError(503, 'unavailable_error', message, code);

export const serverError = (message: string, code = 'server_error'): ApiError => new ApiError(500, 'server_error', message, code);

/** Anything thrown while answering that is not already an ApiError: a bug of ours, a 500. */
export function asApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  const m = (e as { message?: unknown } | null)?.message;
  return serverError(typeof m === 'string' && m ? m : 'internal error');
}
