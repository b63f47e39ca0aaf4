// Ollama's model store: manifests/<registry>/<namespace>/<model>/<tag> are JSON (Docker
// distribution manifest v2) whose layers name blobs by digest; the layer with media type
// application/vnd.ollama.image.model is the GGUF. Blobs live at blobs/sha256-<hex>.
// Pure: the caller reads the files.

export const OLLAMA_MODEL_MEDIA_TYPE = 'application/vnd.ollama.image.model';
export const OLLAMA_PROJECTOR_MEDIA_TYPE = 'application/vnd.ollama.image.projector';
export const OLLAMA_ADAPTER_MEDIA_TYPE = 'application/vnd.ollama.image.adapter';
export const OLLAMA_DEFAULT_REGISTRY = 'registry.ollama.ai';
export const OLLAMA_DEFAULT_NAMESPACE = 'library';
/** A manifest is a few hundred bytes; anything far bigger is not one. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;

export type OllamaLayerRole = 'model' | 'projector' | 'adapter';

export interface OllamaGgufLayer {
  readonly role: OllamaLayerRole;
  /** `sha256-<hex>`: the blob's file name. */
  readonly blob: string;
  readonly size: number | null;
}

const ROLES: Record<string, OllamaLayerRole> = {
  [OLLAMA_MODEL_MEDIA_TYPE]: 'model',
  [OLLAMA_PROJECTOR_MEDIA_TYPE]: 'projector',
  [OLLAMA_ADAPTER_MEDIA_TYPE]: 'adapter',
};

/** `sha256:<64 hex>` (or the file form `sha256-<hex>`) → `sha256-<hex>`; null when malformed (never a path). */
export function ollamaBlobName(digest: unknown): string | null {
  if (typeof digest !== 'string') return null;
  const m = /^sha256[:-]([0-9a-f]{64})$/.exec(digest);
  return m ? `sha256-${m[1]}` : null;
}

/**
 * The GGUF layers of a manifest (model first). Throws an Error whose message is the reason the
 * manifest is unusable: not JSON, no layers, a malformed digest, no model layer.
 */
export function parseOllamaManifest(text: string): OllamaGgufLayer[] {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`manifest is not valid JSON (${(e as Error).message})`);
  }
  const layers = (v as { layers?: unknown } | null)?.layers;
  if (typeof v !== 'object' || v === null || !Array.isArray(layers)) throw new Error('manifest has no "layers" list');
  const out: OllamaGgufLayer[] = [];
  layers.forEach((l: unknown, i) => {
    const layer = l as { mediaType?: unknown; digest?: unknown; size?: unknown } | null;
    const role = typeof layer?.mediaType === 'string' ? ROLES[layer.mediaType] : undefined;
    if (!role) return;
    const blob = ollamaBlobName(layer?.digest);
    if (!blob) throw new Error(`manifest layer ${i} (${String(layer?.mediaType)}) has a malformed digest`);
    const size = typeof layer?.size === 'number' && Number.isSafeInteger(layer.size) && layer.size >= 0 ? layer.size : null;
    out.push({ role, blob, size });
  });
  if (!out.some((l) => l.role === 'model')) throw new Error(`manifest names no model layer (${OLLAMA_MODEL_MEDIA_TYPE})`);
  return out.sort((a, b) => (a.role === 'model' ? -1 : b.role === 'model' ? 1 : 0));
}

/**
 * The name Ollama shows for manifests/<registry>/<namespace>/<model>/<tag>: `model:tag` in the
 * default registry's library, `namespace/model:tag` elsewhere in it, the full
 * `registry/namespace/model:tag` for other registries (`hf.co/org/repo:Q4_K_M`).
 */
export function ollamaModelName(parts: readonly string[]): string {
  const tag = parts[parts.length - 1] ?? 'latest';
  const [registry, ...rest] = parts.slice(0, -1);
  const path = rest.join('/');
  if (registry === OLLAMA_DEFAULT_REGISTRY) {
    const short = rest[0] === OLLAMA_DEFAULT_NAMESPACE && rest.length === 2 ? (rest[1] as string) : path;
    return `${short}:${tag}`;
  }
  return `${[registry, path].filter(Boolean).join('/')}:${tag}`;
}
