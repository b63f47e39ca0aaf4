// The API server setting, kept in <dataRoot>/api-server.json (owner-only: it may hold the key).
// A missing or damaged file means the default: off, on llama-server's port, no key.
import { readFile } from 'node:fs/promises';
import { DEFAULT_API_PORT, validateApiServerOptions } from '../shared/api-server-state.js';
import { writeFileAtomic } from '../node/atomic-write.js';
import type { ApiSamplingDefaults } from '../shared/api-defaults.js';
import { NO_MODEL_NAMES, type ModelNames } from '../shared/model-names.js';
import type { EmbedPooling } from '../shared/generation-protocol.js';

export interface ApiSetting {
  enabled: boolean;
  port: number;
  apiKey: string | null;
  /** Origins let in from a browser; [] = none. */
  cors: string[];
  /** Sampling for request fields left unset; {} = each API's own. */
  defaults: ApiSamplingDefaults;
  /** Aliases and tags the model is served under; empty = the file's name. */
  names: ModelNames;
  /** GET /slots answers (on by default, as in llama-server). */
  slots: boolean;
  /** Embeddings' pooling (mean by default, as in llama-server for most models). */
  pooling: EmbedPooling;
}

export const DEFAULT_API_SETTING: ApiSetting = { enabled: false, port: DEFAULT_API_PORT, apiKey: null, cors: [], defaults: {}, names: NO_MODEL_NAMES, slots: true, pooling: 'mean' };

export async function readApiSetting(file: string): Promise<ApiSetting> {
  try {
    const o = validateApiServerOptions(JSON.parse(await readFile(file, 'utf8')));
    return { enabled: o.enabled, port: o.port, apiKey: o.apiKey ?? null, cors: o.cors ?? [], defaults: o.defaults ?? {}, names: o.names ?? NO_MODEL_NAMES, slots: o.slots ?? true, pooling: o.pooling ?? 'mean' };
  } catch {
    return { ...DEFAULT_API_SETTING };
  }
}

export async function writeApiSetting(file: string, s: ApiSetting): Promise<void> {
  // writeFileAtomic creates the file 0600.
  await writeFileAtomic(file, JSON.stringify(s, null, 2) + '\n');
}
