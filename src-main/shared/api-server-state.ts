// The OpenAI-compatible API server as the app's setting: what the renderer asks for
// (setApiServer) and what it is told (getApiServer). The key itself never goes back to the
// renderer: it only learns whether one is set. Pure.

import { validateApiDefaults, type ApiSamplingDefaults } from './api-defaults.js';
import { validateModelNames, type ModelNames } from './model-names.js';
import type { EmbedPooling } from './generation-protocol.js';

/** llama-server's default port, so clients configured for it work unchanged. */
export const DEFAULT_API_PORT = 8080;

export interface ApiServerState {
  /** The user turned the API on (it may still have failed to start: see `error`). */
  enabled: boolean;
  /** Where clients send requests (http://127.0.0.1:PORT/v1); null while it is not listening. */
  url: string | null;
  port: number;
  /** Requests must carry `Authorization: Bearer KEY`. */
  hasKey: boolean;
  /** Why an enabled server is not listening (the port is taken, …); null otherwise. */
  error: string | null;
  /** Origins whose pages may call the API from a browser (`serve --cors`); [] = none. */
  cors: string[];
  /** Sampling for request fields left unset (`serve --temp …`); {} = each API's own defaults. */
  defaults: ApiSamplingDefaults;
  /** The names the model is served under (`serve --alias`, `--tags`); none = the file's name. */
  names: ModelNames;
  /** GET /slots answers (`serve --slots`, on by default). */
  slots: boolean;
  /** How embeddings pool a text's hidden states (`serve --pooling`): mean, or none (a vector per token on /embeddings). */
  pooling: EmbedPooling;
}

export interface ApiServerOptions {
  enabled: boolean;
  port: number;
  /** null: no key (anyone on this machine may call the API). Omitted: keep the key set before. */
  apiKey?: string | null;
  /** Origins let in from a browser (`*` = any, never with credentials); [] = none. Omitted: keep those set before. */
  cors?: string[];
  /** Sampling for request fields left unset; {} = none. Omitted: keep those set before. */
  defaults?: ApiSamplingDefaults;
  /** Aliases and tags; empty lists = the file's name. Omitted: keep those set before. */
  names?: ModelNames;
  /** GET /slots answers. Omitted: keep what was set before (on by default). */
  slots?: boolean;
  /** Embeddings' pooling. Omitted: keep what was set before (mean by default). */
  pooling?: EmbedPooling;
}

export class ApiServerOptionsError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = 'ApiServerOptionsError';
  }
}

/** What a key may hold: printable ASCII without spaces, as an HTTP header carries it unchanged. */
const KEY_RE = /^[\x21-\x7e]{1,256}$/;

/** Options that crossed a process boundary (untrusted shape), checked field by field. */
export function validateApiServerOptions(v: unknown): ApiServerOptions {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ApiServerOptionsError('API server options must be an object');
  const o = v as Record<string, unknown>;
  if (typeof o.enabled !== 'boolean') throw new ApiServerOptionsError('enabled must be true or false');
  if (typeof o.port !== 'number' || !Number.isInteger(o.port) || o.port < 1 || o.port > 65535) {
    throw new ApiServerOptionsError(`port must be an integer 1..65535 (got ${String(o.port)})`);
  }
  const out: ApiServerOptions = { enabled: o.enabled, port: o.port };
  if (o.apiKey !== undefined) {
    if (o.apiKey !== null && (typeof o.apiKey !== 'string' || !KEY_RE.test(o.apiKey))) {
      throw new ApiServerOptionsError('apiKey must be null or 1..256 printable characters without spaces');
    }
    out.apiKey = o.apiKey;
  }
  if (o.cors !== undefined) {
    if (!Array.isArray(o.cors) || o.cors.length > 32 || o.cors.some((c) => typeof c !== 'string' || c.length === 0 || c.length > 256)) {
      throw new ApiServerOptionsError('cors must be a list of at most 32 origins (https://host[:port]) or *');
    }
    out.cors = o.cors as string[];
  }
  if (o.slots !== undefined) {
    if (typeof o.slots !== 'boolean') throw new ApiServerOptionsError('slots must be true or false');
    out.slots = o.slots;
  }
  if (o.pooling !== undefined) {
    if (o.pooling !== 'mean' && o.pooling !== 'none') throw new ApiServerOptionsError("pooling must be 'mean' or 'none'");
    out.pooling = o.pooling;
  }
  try {
    if (o.defaults !== undefined) out.defaults = validateApiDefaults(o.defaults);
    if (o.names !== undefined) out.names = validateModelNames(o.names);
  } catch (e) {
    throw new ApiServerOptionsError((e as Error).message);
  }
  return out;
}
