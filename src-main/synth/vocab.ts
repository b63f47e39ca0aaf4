// Reads a real tokenizer from a vocab-only GGUF of the llama.cpp source (models/ggml-vocab-*.gguf)
// and returns every tokenizer.* KV pair as raw bytes, copied unchanged into the synthetic model.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { GgufValueType } from '../shared/gguf/ggml-types.js';
import { parseGgufHeader } from '../shared/gguf/reader.js';
import type { RawKv } from '../shared/gguf/writer-types.js';
import { SynthInputError } from './shape.js';

export interface VocabKvs {
  readonly name: string;
  readonly path: string;
  readonly kv: readonly RawKv[];
  /** Number of tokens (tokenizer.ggml.tokens): the model's n_vocab. */
  readonly nVocab: number;
  readonly hasChatTemplate: boolean;
}

export function vocabPath(dir: string, name: string): string {
  return join(dir, `ggml-vocab-${name}.gguf`);
}

export async function listVocabs(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names
    .filter((n) => /^ggml-vocab-.+\.gguf$/.test(n))
    .map((n) => n.slice('ggml-vocab-'.length, -'.gguf'.length))
    .sort();
}

export async function readVocab(dir: string, name: string): Promise<VocabKvs> {
  if (!/^[\w.-]+$/.test(name)) throw new SynthInputError(`bad vocab name '${name}'`);
  const path = vocabPath(dir, name);
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch {
    const have = await listVocabs(dir);
    throw new SynthInputError(
      have.length ? `no vocab '${name}' in ${dir} (have: ${have.join(', ')})` : `no vocab files in ${dir}: fetch the llama.cpp source first (npm run build:native)`,
    );
  }
  const h = parseGgufHeader(bytes, bytes.length);
  const kv: RawKv[] = [];
  h.kv.forEach((e, i) => {
    if (!e.key.startsWith('tokenizer.')) return;
    const end = i + 1 < h.kv.length ? (h.kv[i + 1] as { offset: number }).offset : h.tensorInfoOffset;
    // Type tag (4 bytes before the value) through the end of the value.
    kv.push({ key: e.key, raw: bytes.slice(e.valueOffset - 4, end) });
  });
  const tokens = h.kvByKey.get('tokenizer.ggml.tokens');
  if (!tokens || tokens.type !== GgufValueType.ARRAY || typeof tokens.value !== 'object' || !('items' in tokens.value)) {
    throw new SynthInputError(`${path} has no tokenizer.ggml.tokens array`);
  }
  return { name, path, kv, nVocab: tokens.value.items.length, hasChatTemplate: h.kvByKey.has('tokenizer.chat_template') };
}
