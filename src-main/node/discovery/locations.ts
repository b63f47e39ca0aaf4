// Where the ecosystem keeps GGUF models, given a home folder and an environment (so tests can
// point it at a fake home): Ollama (OLLAMA_MODELS), LM Studio, the Hugging Face hub cache
// (HF_HUB_CACHE, HF_HOME), llama.cpp's cache (LLAMA_CACHE), RAMforge's own models folder,
// Downloads, and folders the user adds.
import { join, resolve } from 'node:path';
import type { DiscoverySource } from '../../shared/discovery/types.js';

export interface DiscoveryPlaces {
  readonly home: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Folders the user added (searched recursively). */
  readonly dirs?: readonly string[];
  /** Also the system-wide Ollama store of Linux service installs (default true; tests turn it off). */
  readonly includeSystem?: boolean;
  readonly platform?: NodeJS.Platform;
}

export interface Root {
  readonly source: DiscoverySource;
  readonly path: string;
}

/** Ollama's Linux installer runs the server as user `ollama` whose home is here. */
const OLLAMA_SYSTEM_STORE = '/usr/share/ollama/.ollama/models';

export function discoveryRoots(p: DiscoveryPlaces): Root[] {
  const { home, env } = p;
  const platform = p.platform ?? process.platform;
  const cache = env.XDG_CACHE_HOME || join(home, '.cache');
  const roots: Root[] = [];
  if (env.OLLAMA_MODELS) roots.push({ source: 'ollama', path: env.OLLAMA_MODELS });
  else {
    roots.push({ source: 'ollama', path: join(home, '.ollama', 'models') });
    if ((p.includeSystem ?? true) && platform === 'linux') roots.push({ source: 'ollama', path: OLLAMA_SYSTEM_STORE });
  }
  roots.push({ source: 'lmstudio', path: join(home, '.lmstudio', 'models') });
  // LM Studio before 0.3 kept its models here.
  roots.push({ source: 'lmstudio', path: join(home, '.cache', 'lm-studio', 'models') });
  const hfHome = env.HF_HOME || join(cache, 'huggingface');
  roots.push({ source: 'huggingface', path: env.HF_HUB_CACHE || env.HUGGINGFACE_HUB_CACHE || join(hfHome, 'hub') });
  const llamaCache = env.LLAMA_CACHE || (platform === 'darwin' ? join(home, 'Library', 'Caches', 'llama.cpp') : join(cache, 'llama.cpp'));
  roots.push({ source: 'llama.cpp', path: llamaCache });
  const data = env.RAMFORGE_DATA || join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'ramforge');
  roots.push({ source: 'ramforge', path: join(data, 'models') });
  roots.push({ source: 'downloads', path: join(home, 'Downloads') });
  for (const d of p.dirs ?? []) roots.push({ source: 'folder', path: resolve(d) });
  const seen = new Set<string>();
  return roots
    .map((r) => ({ ...r, path: resolve(r.path) }))
    .filter((r) => (seen.has(r.path) ? false : (seen.add(r.path), true)));
}
