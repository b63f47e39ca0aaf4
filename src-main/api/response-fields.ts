// llama-server's `response_fields` on /completion: the answer cut down to the listed fields, a
// path with slashes reaching into an object (`generation_settings/n_predict`) and lifted to the
// top under the path as its name; a path that names nothing is left out without error, as
// llama-server does. Pure.
import { badRequest } from './errors.js';
import { given } from './check-value.js';

const MAX_FIELDS = 64;

/** The request's `response_fields`: absent or an array of strings (a wrong type is a 400). */
export function checkResponseFields(v: unknown): string[] {
  if (!given(v)) return [];
  if (!Array.isArray(v) || v.length > MAX_FIELDS || v.some((p) => typeof p !== 'string' || p.length === 0 || p.length > 256)) {
    throw badRequest(`'response_fields' must be an array of at most ${MAX_FIELDS} field paths (strings such as "content" or "generation_settings/n_predict")`, 'response_fields', 'invalid_type');
  }
  return v as string[];
}

/** The answer with only these paths; the whole answer when none are listed. */
export function pickFields(paths: string[], answer: Record<string, unknown>): Record<string, unknown> {
  if (paths.length === 0) return answer;
  const out: Record<string, unknown> = {};
  for (const path of paths) {
    let at: unknown = answer;
    let found = true;
    for (const key of path.split('/')) {
      if (found && at !== null && typeof at === 'object' && !Array.isArray(at) && Object.hasOwn(at, key)) at = (at as Record<string, unknown>)[key];
      else found = false;
    }
    if (found) out[path] = at;
  }
  return out;
}
