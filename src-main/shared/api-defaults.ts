// The API's server-wide sampling defaults (llama-server's --temp, --seed, --top-k, --top-p,
// --min-p, --repeat-penalty, --n-predict): what a request gets for a field it does not set. Only
// the fields the user set are held; each API dialect fills the rest with its own defaults (OpenAI's
// temperature 1 on the OpenAI routes, Ollama's 0.8 on Ollama's). Set by `serve --api`'s flags or
// the app's API setting, so the check lives here, where both (and the renderer) can use it. Pure.
import { LIMITS, type Limit } from './settings/run-settings.js';

export interface ApiSamplingDefaults {
  temperature?: number;
  topK?: number;
  topP?: number;
  minP?: number;
  repeatPenalty?: number;
  /** 0xffffffff: a random seed per request. */
  seed?: number;
  /** Tokens a request generates at most when it gives no limit (llama-server's --n-predict). */
  maxTokens?: number;
}

export type ApiDefaultField = keyof ApiSamplingDefaults;

/** Each field's bounds and whether it must be whole; a request limit of 0 tokens is no default. */
export const API_DEFAULT_FIELDS: Record<ApiDefaultField, { limit: Limit; int: boolean }> = {
  temperature: { limit: LIMITS.temperature, int: false },
  topK: { limit: LIMITS.topK, int: true },
  topP: { limit: LIMITS.topP, int: false },
  minP: { limit: LIMITS.minP, int: false },
  repeatPenalty: { limit: LIMITS.repeatPenalty, int: false },
  seed: { limit: LIMITS.seed, int: true },
  maxTokens: { limit: { min: 1, max: LIMITS.maxTokens.max }, int: true },
};

export class ApiDefaultsError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = 'ApiDefaultsError';
  }
}

/**
 * Defaults that crossed a process boundary or came from a file (untrusted shape), field by field;
 * `nameOf` names a field in the error as its reader knows it.
 */
export function validateApiDefaults(v: unknown, nameOf: (field: string) => string = (f) => `sampling default ${f}`): ApiSamplingDefaults {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ApiDefaultsError('sampling defaults must be an object');
  const out: ApiSamplingDefaults = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const spec = API_DEFAULT_FIELDS[k as ApiDefaultField] as (typeof API_DEFAULT_FIELDS)[ApiDefaultField] | undefined;
    if (!spec) throw new ApiDefaultsError(`unknown sampling default '${k.slice(0, 40)}' (known: ${Object.keys(API_DEFAULT_FIELDS).join(', ')})`);
    if (x === undefined) continue;
    const ok = typeof x === 'number' && Number.isFinite(x) && (!spec.int || Number.isInteger(x)) && x >= spec.limit.min && x <= spec.limit.max;
    if (!ok) throw new ApiDefaultsError(`${nameOf(k)} must be ${spec.int ? 'an integer' : 'a number'} from ${spec.limit.min} to ${spec.limit.max} (got ${String(x).slice(0, 40)})`);
    out[k as ApiDefaultField] = x as number;
  }
  return out;
}

/** Each field under the name serve's flag gives it; the app's setting is written with the same names. */
export const API_DEFAULT_NAMES: Record<ApiDefaultField, string> = {
  temperature: 'temperature',
  topK: 'top-k',
  topP: 'top-p',
  minP: 'min-p',
  repeatPenalty: 'repeat-penalty',
  seed: 'seed',
  maxTokens: 'max-tokens',
};

/** The defaults as the app shows them: `temperature=0.2, seed=42` (empty: none). */
export function apiDefaultsText(d: ApiSamplingDefaults): string {
  return (Object.keys(API_DEFAULT_NAMES) as ApiDefaultField[])
    .filter((f) => d[f] !== undefined)
    .map((f) => `${API_DEFAULT_NAMES[f]}=${String(d[f])}`)
    .join(', ');
}

/** What a user typed as `name=value, …` (serve's flag names, llama.cpp's temp and n-predict too); ApiDefaultsError says what is wrong. */
export function parseApiDefaultsText(text: string): ApiSamplingDefaults {
  const byName = new Map<string, ApiDefaultField>([...Object.entries(API_DEFAULT_NAMES).map(([f, n]) => [n, f as ApiDefaultField] as const), ['temp', 'temperature'], ['n-predict', 'maxTokens']]);
  const raw: Record<string, unknown> = {};
  for (const part of text.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const m = /^([a-z-]+)\s*=\s*(\S+)$/.exec(part);
    const field = m ? byName.get(m[1] as string) : undefined;
    if (!m || !field) throw new ApiDefaultsError(`'${part.slice(0, 40)}' is not name=value with a name of: ${Object.values(API_DEFAULT_NAMES).join(', ')}`);
    const n = Number(m[2]);
    raw[field] = Number.isNaN(n) ? m[2] : n;
  }
  // Said with the names the user types, not the fields'.
  return validateApiDefaults(raw, (f) => API_DEFAULT_NAMES[f as ApiDefaultField]);
}
