// `logit_bias` as OpenAI and llama-server take it: an object of token id (as text) → bias, or
// llama-server's list of [token, bias] pairs; a token may also be given as text, every token of
// which gets the bias (llama-server's form: a key or first element that is not an integer). A bias
// is a number, or false for "never this token" (-Infinity). The worker checks the ids against the
// vocabulary and tokenizes the texts (sampling-bias.ts). Unlike llama-server, which skips an entry
// it cannot read, a malformed one is a 400: a client then learns its bias was not applied. Pure.
import type { RequestedBias } from '../shared/worker-protocol.js';
import { badRequest } from './errors.js';

/** Entries one request may give (each costs a little on every sampled token). */
export const MAX_LOGIT_BIAS = 65_536;
const MAX_BIAS_TEXT = 1024;

const BIAS_FORMS = "an object of token → bias or an array of [token, bias] pairs (token: an id or a text; bias: a number, or false to ban it)";

function biasOf(v: unknown, at: string): number {
  if (v === false) return -Infinity;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw badRequest(`'${at}' must be a number, or false to ban the token`, at, 'invalid_type');
  return v;
}

function entryOf(token: unknown, bias: unknown, at: string, keyed: boolean): RequestedBias {
  const b = biasOf(bias, at);
  // An object's keys are always text: an integer one names a token id, as in OpenAI's API.
  const id = keyed && typeof token === 'string' && /^\d+$/.test(token) ? Number(token) : token;
  if (typeof id === 'number') {
    if (!Number.isSafeInteger(id) || id < 0) throw badRequest(`'${at}': a token id must be an integer from 0, got ${id}`, at, 'invalid_value');
    return { token: id, bias: b };
  }
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_BIAS_TEXT) throw badRequest(`'${at}': the token must be an id or a text of 1 to ${MAX_BIAS_TEXT} characters`, at, 'invalid_type');
  return { text: id, bias: b };
}

/** The biases asked for ([] when none). */
export function checkLogitBias(v: unknown): RequestedBias[] {
  if (v === undefined || v === null) return [];
  if (typeof v !== 'object') throw badRequest(`'logit_bias' must be ${BIAS_FORMS}`, 'logit_bias', 'invalid_type');
  const pairs: [unknown, unknown, string][] = Array.isArray(v)
    ? v.map((e: unknown, i) => {
        if (!Array.isArray(e) || e.length !== 2) throw badRequest(`'logit_bias[${i}]' must be a [token, bias] pair`, `logit_bias[${i}]`, 'invalid_type');
        return [e[0], e[1], `logit_bias[${i}]`];
      })
    : Object.entries(v).map(([k, b]) => [k, b, `logit_bias.${k.slice(0, 40)}`]);
  if (pairs.length > MAX_LOGIT_BIAS) throw badRequest(`'logit_bias' may hold at most ${MAX_LOGIT_BIAS} entries`, 'logit_bias', 'invalid_value');
  return pairs.map(([t, b, at]) => entryOf(t, b, at, !Array.isArray(v)));
}
