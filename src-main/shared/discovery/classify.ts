// What kind of GGUF a file is, from its header: a chat model, or something listed but not
// offered for chat (LoRA adapter, multimodal projector, vocabulary only, embedding model,
// unknown architecture), with the reason in words. Pure.
import type { GgufHeader } from '../gguf/reader-types.js';
import type { ModelView } from '../gguf/model-view.js';
import { LLAMA_CPP_ARCHITECTURES } from '../capabilities.js';
import { GgufValueType } from '../gguf/ggml-types.js';
import type { ModelKind } from './types.js';

/** Encoder-only architectures: they embed text, they do not generate it. */
const EMBEDDING_ARCHITECTURES = new Set(['bert', 'modern-bert', 'nomic-bert', 'nomic-bert-moe', 'neo-bert', 'jina-bert-v2', 'jina-bert-v3', 'eurobert', 'gemma-embedding', 't5encoder']);
/** Multimodal encoders written as their own GGUF (llama.cpp's mmproj files). */
const PROJECTOR_ARCHITECTURES = new Set(['clip', 'mmproj']);

export interface Classification {
  readonly kind: ModelKind;
  readonly chat: boolean;
  readonly reason: string | null;
}

function str(h: GgufHeader, key: string): string | null {
  const e = h.kvByKey.get(key);
  return e && e.type === GgufValueType.STRING ? (e.value as string) : null;
}

export function classifyModel(view: ModelView, header: GgufHeader): Classification {
  const arch = view.architecture;
  const type = str(header, 'general.type');
  if (type === 'adapter') {
    const what = str(header, 'adapter.type') ?? 'adapter';
    return { kind: 'adapter', chat: false, reason: `a ${what === 'lora' ? 'LoRA' : what} adapter${arch ? ` for ${arch}` : ''}: applied on top of a base model, not run alone` };
  }
  if (type === 'mmproj' || (arch !== null && PROJECTOR_ARCHITECTURES.has(arch))) {
    return { kind: 'projector', chat: false, reason: 'a multimodal projector (mmproj): the image/audio encoder used beside a model, not a chat model' };
  }
  if (view.vocabOnly) return { kind: 'vocab-only', chat: false, reason: 'a vocabulary only (no weights): a tokenizer, not a model' };
  if (arch === null || !LLAMA_CPP_ARCHITECTURES.includes(arch)) {
    return { kind: 'unsupported', chat: false, reason: `architecture '${arch ?? '(none)'}' is not known to the pinned llama.cpp` };
  }
  if (EMBEDDING_ARCHITECTURES.has(arch)) return { kind: 'embedding', chat: false, reason: `an embedding model (${arch}): it encodes text, it does not generate it` };
  return { kind: 'model', chat: true, reason: null };
}

/** The ggml type holding the most bytes of weights. */
export function mainQuantization(view: ModelView): string | null {
  return view.quantization[0]?.type ?? null;
}
