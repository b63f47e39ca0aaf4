// Checks of single request values: each returns the value in the type the server uses, or
// throws a 400 naming the parameter and what it must be. `null` stands for "not given", as in
// OpenAI's API. Pure.
import { badRequest } from './errors.js';

export type Body = Record<string, unknown>;

const show = (v: unknown): string => {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'an object' : String(v);
};

const wrongType = (param: string, want: string, v: unknown) => badRequest(`'${param}' must be ${want}, got ${show(v)}`, param, 'invalid_type');
const outOfRange = (param: string, want: string, v: unknown) => badRequest(`'${param}' must be ${want}, got ${show(v)}`, param, 'invalid_value');

export const given = (v: unknown): boolean => v !== undefined && v !== null;

export function optNumber(b: Body, param: string, min: number, max: number): number | null {
  const v = b[param];
  if (!given(v)) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw wrongType(param, 'a number', v);
  if (v < min || v > max) throw outOfRange(param, `between ${min} and ${max}`, v);
  return v;
}

export function optInt(b: Body, param: string, min: number, max: number): number | null {
  const v = b[param];
  if (!given(v)) return null;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw wrongType(param, 'an integer', v);
  if (v < min || v > max) throw outOfRange(param, `an integer from ${min} to ${max}`, v);
  return v;
}

export function optBool(b: Body, param: string): boolean | null {
  const v = b[param];
  if (!given(v)) return null;
  if (typeof v !== 'boolean') throw wrongType(param, 'true or false', v);
  return v;
}

export function optString(b: Body, param: string, maxLen: number): string | null {
  const v = b[param];
  if (!given(v)) return null;
  if (typeof v !== 'string') throw wrongType(param, 'a string', v);
  if (v.length > maxLen) throw outOfRange(param, `at most ${maxLen} characters`, `${v.length} characters`);
  return v;
}

export function optObject(b: Body, param: string): Body | null {
  const v = b[param];
  if (!given(v)) return null;
  if (typeof v !== 'object' || Array.isArray(v)) throw wrongType(param, 'an object', v);
  return v as Body;
}

/** A parameter we accept only at its neutral value (what the client gets is what it asked for). */
export function onlyNeutral(b: Body, param: string, isNeutral: (v: unknown) => boolean, why: string): void {
  const v = b[param];
  if (given(v) && !isNeutral(v)) throw badRequest(`'${param}' is not supported by this server: ${why}`, param, 'unsupported_parameter');
}

/** Most ids one token-id input may hold (more than any context here). */
export const MAX_INPUT_TOKENS = 1 << 17;

/** Token ids of the model's vocabulary, as OpenAI's token-id inputs give them (the worker refuses ids past the vocabulary). */
export function tokenIds(v: unknown[], param: string): number[] {
  if (v.length === 0 || v.length > MAX_INPUT_TOKENS) throw badRequest(`'${param}' must hold 1 to ${MAX_INPUT_TOKENS} token ids`, param, 'invalid_value');
  for (const x of v) if (typeof x !== 'number' || !Number.isInteger(x) || x < 0 || x > 0x7fffffff) throw badRequest(`'${param}' must hold token ids (integers from 0)`, param, 'invalid_type');
  return v as number[];
}

/**
 * The names in `b` outside `known` (prefixed with `at`): accepted and ignored, as llama-server
 * and Ollama treat them, and named back to the client (X-Ramforge-Ignored) and in the log so
 * that a misspelt parameter is never silently misread.
 */
export function unknownNames(b: Body, known: Set<string>, at = ''): string[] {
  return Object.keys(b)
    .filter((k) => !known.has(k))
    .map((k) => `${at}${k.length > 60 ? `${k.slice(0, 60)}…` : k}`);
}
