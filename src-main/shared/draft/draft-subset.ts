// A draft made of a target's own first layers: its embeddings, final norm, output head and
// blocks 0..N-1, byte for byte, with the block count rewritten. Pure: the header and the list
// of tensors to copy; the file is written at the edge (synth/draft-of.ts).
import { GgufValueType } from '../gguf/ggml-types.js';
import type { GgufHeader, GgufTensorInfo } from '../gguf/reader-types.js';
import { isArray, kvInteger, kvString } from '../gguf/metadata.js';
import type { WriterKv } from '../gguf/writer-types.js';

export class DraftSubsetError extends Error {}

export interface DraftSubset {
  kv: WriterKv[];
  /** The target's tensors the draft keeps, in the target's order. */
  tensors: GgufTensorInfo[];
  layers: number;
  targetLayers: number;
}

const BLOCK = /^blk\.(\d+)\./;

export function planDraftSubset(target: GgufHeader, layers: number): DraftSubset {
  const arch = kvString(target, 'general.architecture');
  if (!arch) throw new DraftSubsetError('the target has no general.architecture');
  const countKey = `${arch}.block_count`;
  const targetLayers = kvInteger(target, countKey);
  if (targetLayers === undefined) throw new DraftSubsetError(`the target has no ${countKey}`);
  if (!Number.isInteger(layers) || layers < 1 || layers >= targetLayers)
    throw new DraftSubsetError(`--layers must be from 1 to ${targetLayers - 1} (the target has ${targetLayers} layers)`);
  const tensors = target.tensors.filter((t) => {
    const m = BLOCK.exec(t.name);
    return !m || Number(m[1]) < layers;
  });
  const name = kvString(target, 'general.name') ?? arch;
  const kv: WriterKv[] = target.kv.map((k) => {
    if (k.key === countKey) return { key: k.key, type: GgufValueType.UINT32, value: layers };
    if (k.key === 'general.name') return { key: k.key, type: GgufValueType.STRING, value: `${name} (draft: first ${layers} of ${targetLayers} layers)` };
    // Per-layer hyperparameters (an array with one entry a layer) keep the draft's layers.
    // A draft is given token ids, never text: the BPE merge table (tens of MB once llama.cpp
    // has built its lookup from it) is left empty; the token list, which gives ids their
    // meaning, is kept whole.
    if (k.key === 'tokenizer.ggml.merges' && isArray(k.value)) return { key: k.key, type: k.type, value: { elementType: k.value.elementType, items: [] } };
    if (k.key.startsWith(`${arch}.`) && isArray(k.value) && k.value.items.length === targetLayers)
      return { key: k.key, type: k.type, value: { elementType: k.value.elementType, items: k.value.items.slice(0, layers) } };
    return { key: k.key, type: k.type, value: k.value };
  });
  if (!target.kvByKey.has('general.name')) kv.push({ key: 'general.name', type: GgufValueType.STRING, value: `${name} (draft: first ${layers} of ${targetLayers} layers)` });
  return { kv, tensors, layers, targetLayers };
}
