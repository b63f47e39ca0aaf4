// llama-server's /tokenize and /detokenize: the served model's vocabulary, for clients that count
// or cut tokens themselves (SillyTavern, editor plugins, llama.cpp's own tests). Bodies as
// llama-server reads them: `content`, `add_special` (false), `parse_special` (true),
// `with_pieces` (false); `tokens`. Malformed values are 400s; unknown fields are ignored and named.
import type { ApiBackend } from './backend.js';
import { ApiError, badRequest, unavailable } from './errors.js';
import { given, optBool, tokenIds, unknownNames, type Body } from './check-value.js';

/** Longest text one /tokenize request may hold. */
const MAX_TEXT = 1 << 22;

function asBody(v: unknown): Body {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw badRequest('the request body must be a JSON object', null, 'invalid_body');
  return v as Body;
}

/** The answer to a POST /tokenize or /detokenize body; `noteIgnored` names unknown fields. */
export async function answerTokens(route: '/tokenize' | '/detokenize', body: unknown, backend: ApiBackend, noteIgnored: (names: string[]) => void): Promise<object> {
  const b = asBody(body);
  const served = backend.model();
  if (served instanceof ApiError) throw served;
  if (!backend.tokenize || !backend.detokenize) throw unavailable('this server cannot tokenize', 'tokenize_unavailable');
  if (route === '/detokenize') {
    noteIgnored(unknownNames(b, new Set(['tokens'])));
    const ids = given(b.tokens) ? (Array.isArray(b.tokens) ? b.tokens : null) : [];
    if (ids === null) throw badRequest("'tokens' must be an array of token ids", 'tokens', 'invalid_type');
    return { content: ids.length === 0 ? '' : await backend.detokenize(tokenIds(ids, 'tokens')) };
  }
  noteIgnored(unknownNames(b, new Set(['content', 'add_special', 'parse_special', 'with_pieces'])));
  const content = b.content ?? '';
  if (typeof content !== 'string') throw badRequest("'content' must be a string", 'content', 'invalid_type');
  if (content.length > MAX_TEXT) throw badRequest(`'content' must have at most ${MAX_TEXT} characters`, 'content', 'invalid_value');
  const r = await backend.tokenize(content, optBool(b, 'add_special') ?? false, optBool(b, 'parse_special') ?? true);
  if (optBool(b, 'with_pieces') !== true) return { tokens: r.tokens };
  return { tokens: r.tokens.map((id, i) => ({ id, piece: r.pieces[i] ?? '' })) };
}
