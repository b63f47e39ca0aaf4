// The model as the planner and `inspect` see it: identity, shape, layers with their tensors
// and byte totals, persistent tensors, quantization summary. Pure; built from parsed headers
// (one per shard of a split set) and checked for semantic nonsense.
import { GgufError } from './reader-errors.js';
import type { GgufHeader, GgufTensorInfo } from './reader-types.js';
import { kvArrayLength, kvInteger, kvIntegerOrArray, kvString } from './metadata.js';
import { ARCH_REQUIREMENTS, missingTensors } from './arch-requirements.js';
import { buildMoeView, type MoeView } from './moe-view.js';

export interface GgufShard {
  /** File path (or any label in pure code). */
  readonly path: string;
  readonly header: GgufHeader;
}

export interface ViewTensor extends GgufTensorInfo {
  /** Index of the shard holding the data. */
  readonly shard: number;
  /** Layer index from a `blk.N.` name; null for persistent tensors. */
  readonly layer: number | null;
}

export interface LayerView {
  readonly index: number;
  readonly bytes: number;
  readonly tensors: ViewTensor[];
}

export interface QuantRow {
  readonly type: string;
  readonly tensors: number;
  readonly bytes: number;
  readonly elements: number;
}

export interface ShardView {
  readonly path: string;
  readonly fileBytes: number;
  readonly tensorCount: number;
  readonly tensorBytes: number;
  readonly dataOffset: number;
}

export interface ModelView {
  readonly architecture: string | null;
  readonly name: string | null;
  /** A file with metadata but no tensors (e.g. llama.cpp's ggml-vocab-*.gguf). */
  readonly vocabOnly: boolean;
  readonly blockCount: number | null;
  readonly contextLength: number | null;
  readonly embeddingLength: number | null;
  readonly feedForwardLength: number | null;
  readonly headCount: number | null;
  /** KV heads (max over layers when the file gives one per layer); = headCount when absent. */
  readonly headCountKv: number | null;
  /** Per-layer KV heads when the file gives an array, else null. */
  readonly headCountKvByLayer: number[] | null;
  /** Key head size: `{arch}.attention.key_length`, else embedding_length / head_count. */
  readonly headDim: number | null;
  /** Value head size: `{arch}.attention.value_length`, else headDim. */
  readonly valueDim: number | null;
  readonly vocabSize: number | null;
  readonly tokenizerModel: string | null;
  readonly hasChatTemplate: boolean;
  readonly parameterCount: number;
  readonly tensorBytes: number;
  readonly fileBytes: number;
  readonly shards: ShardView[];
  readonly layers: LayerView[];
  readonly persistent: { readonly bytes: number; readonly tensors: ViewTensor[] };
  readonly quantization: QuantRow[];
  readonly tensors: ViewTensor[];
  /** Experts, for a mixture of experts; null (or absent, in views made elsewhere) for a dense model. */
  readonly moe?: MoeView | null;
}

const LAYER_RE = /^blk\.(\d{1,9})\./;

export function layerOf(name: string): number | null {
  const m = LAYER_RE.exec(name);
  return m ? Number(m[1]) : null;
}

export function buildModelView(shards: readonly GgufShard[]): ModelView {
  const first = shards[0];
  if (!first) throw new GgufError('NO_MODEL', 'no GGUF file given', null);
  const h = first.header;
  const arch = kvString(h, 'general.architecture') ?? null;
  const k = (suffix: string): string => `${arch}.${suffix}`;
  const num = (key: string): number | null => (arch ? kvInteger(h, k(key)) ?? null : null);

  const tensors: ViewTensor[] = [];
  shards.forEach((s, shard) => {
    for (const t of s.header.tensors) tensors.push({ ...t, shard, layer: layerOf(t.name) });
  });

  const layerMap = new Map<number, ViewTensor[]>();
  const persistent: ViewTensor[] = [];
  for (const t of tensors) {
    if (t.layer === null) persistent.push(t);
    else {
      const list = layerMap.get(t.layer);
      if (list) list.push(t);
      else layerMap.set(t.layer, [t]);
    }
  }
  const layers: LayerView[] = [...layerMap.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([index, ts]) => ({ index, tensors: ts, bytes: sum(ts.map((t) => t.nbytes)) }));

  const quant = new Map<string, { tensors: number; bytes: number; elements: number }>();
  for (const t of tensors) {
    const q = quant.get(t.typeName) ?? { tensors: 0, bytes: 0, elements: 0 };
    q.tensors++;
    q.bytes += t.nbytes;
    q.elements += t.nElements;
    quant.set(t.typeName, q);
  }
  const quantization = [...quant.entries()].map(([type, q]) => ({ type, ...q })).sort((a, b) => b.bytes - a.bytes || a.type.localeCompare(b.type));

  const embd = num('embedding_length');
  const heads = maxOf(arch ? kvIntegerOrArray(h, k('attention.head_count')) : undefined);
  const kvRaw = arch ? kvIntegerOrArray(h, k('attention.head_count_kv')) : undefined;
  const keyLength = num('attention.key_length');
  const valueLength = num('attention.value_length');
  const headDim = keyLength ?? (embd !== null && heads ? Math.floor(embd / heads) : null);
  const vocabSize = kvArrayLength(h, 'tokenizer.ggml.tokens') ?? num('vocab_size');

  return {
    architecture: arch,
    name: kvString(h, 'general.name') ?? null,
    vocabOnly: tensors.length === 0,
    blockCount: num('block_count'),
    contextLength: num('context_length'),
    embeddingLength: embd,
    feedForwardLength: maxOf(arch ? kvIntegerOrArray(h, k('feed_forward_length')) : undefined),
    headCount: heads,
    headCountKv: maxOf(kvRaw) ?? heads,
    headCountKvByLayer: Array.isArray(kvRaw) ? kvRaw : null,
    headDim,
    valueDim: valueLength ?? headDim,
    vocabSize: vocabSize ?? null,
    tokenizerModel: kvString(h, 'tokenizer.ggml.model') ?? null,
    hasChatTemplate: h.kvByKey.has('tokenizer.chat_template'),
    parameterCount: sum(tensors.map((t) => t.nElements)),
    tensorBytes: sum(tensors.map((t) => t.nbytes)),
    fileBytes: sum(shards.map((s) => s.header.fileSize)),
    shards: shards.map((s) => ({
      path: s.path,
      fileBytes: s.header.fileSize,
      tensorCount: s.header.tensors.length,
      tensorBytes: s.header.tensorBytes,
      dataOffset: s.header.dataOffset,
    })),
    layers,
    persistent: { bytes: sum(persistent.map((t) => t.nbytes)), tensors: persistent },
    quantization,
    tensors,
    moe: buildMoeView(h, arch, tensors),
  };
}

/**
 * Semantic checks a header parser cannot make: block_count against the layers present, layer
 * indices beyond block_count, required tensors of the declared architecture. Vocab-only files
 * (no tensors) pass: llama.cpp can load them for their tokenizer.
 */
export function checkModelView(view: ModelView, first: GgufHeader): void {
  if (view.vocabOnly) return;
  const bcEntry = view.architecture ? first.kvByKey.get(`${view.architecture}.block_count`) : undefined;
  const bcOffset = bcEntry?.valueOffset ?? null;
  const known = view.architecture !== null && view.architecture in ARCH_REQUIREMENTS;
  if (view.blockCount === null) {
    if (known) throw new GgufError('BAD_METADATA', `'${view.architecture}.block_count' is missing`, null);
  } else {
    const present = new Set(view.layers.map((l) => l.index));
    const beyond = view.layers.find((l) => l.index >= (view.blockCount as number));
    if (beyond) {
      throw new GgufError('BLOCK_COUNT', `tensor '${beyond.tensors[0]?.name}' belongs to layer ${beyond.index} but block_count is ${view.blockCount}`, beyond.tensors[0]?.infoOffset ?? bcOffset);
    }
    if (present.size < view.blockCount) {
      let firstMissing = 0;
      while (present.has(firstMissing)) firstMissing++;
      throw new GgufError(
        'BLOCK_COUNT',
        `block_count is ${view.blockCount} but tensors exist for only ${present.size} layers (layer ${firstMissing} has none)`,
        bcOffset,
      );
    }
  }
  if (known) {
    const names = new Set(view.tensors.map((t) => t.name));
    const missing = missingTensors(view.architecture as string, view.blockCount ?? 0, (n) => names.has(n));
    if (missing.length > 0) {
      const more = missing.length > 3 ? ` and ${missing.length - 3} more` : '';
      throw new GgufError(
        'MISSING_TENSOR',
        `architecture '${view.architecture}' requires tensors that are missing: ${missing.slice(0, 3).join(', ')}${more}`,
        first.tensorInfoOffset,
      );
    }
  }
}

function sum(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}

function maxOf(v: number | number[] | undefined | null): number | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) return v;
  let m: number | null = null;
  for (const x of v) if (m === null || x > m) m = x;
  return m;
}
