// The `ramforge inspect --json` document (shape documented in docs/cli-json.md, "inspect").
// Complete: every metadata value in full, every tensor with its byte range.
import type { GgufShard, ModelView, ViewTensor } from './model-view.js';
import { kvToJson, type MetadataJson } from './json-value.js';

export interface TensorJson {
  name: string;
  type: string;
  dims: number[];
  elements: number;
  bytes: number;
  shard: number;
  /** Absolute byte range in the shard's file: [start, end). */
  start: number;
  end: number;
}

export interface InspectReport {
  schemaVersion: 1;
  input: string;
  architecture: string | null;
  name: string | null;
  vocabOnly: boolean;
  parameterCount: number;
  fileBytes: number;
  tensorBytes: number;
  shards: { path: string; fileBytes: number; ggufVersion: number; alignment: number; dataOffset: number; tensorCount: number; tensorBytes: number }[];
  hyperparameters: {
    blockCount: number | null;
    contextLength: number | null;
    embeddingLength: number | null;
    feedForwardLength: number | null;
    headCount: number | null;
    headCountKv: number | null;
    headDim: number | null;
  };
  tokenizer: { model: string | null; vocabSize: number | null };
  chatTemplate: { present: boolean; chars: number | null };
  quantization: { type: string; tensors: number; bytes: number; elements: number }[];
  layers: { index: number; bytes: number; tensors: TensorJson[] }[];
  persistent: { bytes: number; tensors: TensorJson[] };
  /** A mixture of experts' figures (docs/cli-json.md, "inspect"); null for a dense model. */
  moe: MoeJson | null;
  metadata: MetadataJson[];
}

export interface MoeJson {
  expertCount: number;
  expertUsedCount: number | null;
  expertSharedCount: number;
  expertFeedForwardLength: number | null;
  /** Indices of the layers that hold experts. */
  layers: number[];
  bytesPerExpert: number;
  expertBytes: number;
  denseBytes: number;
  sharedExpertBytes: number;
  activeBytesPerToken: number | null;
  routerSkew: number | null;
}

export function moeJson(view: ModelView): MoeJson | null {
  const m = view.moe;
  if (!m) return null;
  return {
    expertCount: m.expertCount,
    expertUsedCount: m.expertUsedCount,
    expertSharedCount: m.expertSharedCount,
    expertFeedForwardLength: m.expertFeedForwardLength,
    layers: m.layers.map((l) => l.index),
    bytesPerExpert: m.bytesPerExpert,
    expertBytes: m.expertBytes,
    denseBytes: m.denseBytes,
    sharedExpertBytes: m.sharedExpertBytes,
    activeBytesPerToken: m.activeBytesPerToken,
    routerSkew: m.routerSkew,
  };
}

function tensorJson(t: ViewTensor): TensorJson {
  return { name: t.name, type: t.typeName, dims: t.dims, elements: t.nElements, bytes: t.nbytes, shard: t.shard, start: t.start, end: t.end };
}

export function inspectReport(input: string, shards: readonly GgufShard[], view: ModelView): InspectReport {
  const first = shards[0];
  const tmpl = first?.header.kvByKey.get('tokenizer.chat_template')?.value;
  return {
    schemaVersion: 1,
    input,
    architecture: view.architecture,
    name: view.name,
    vocabOnly: view.vocabOnly,
    parameterCount: view.parameterCount,
    fileBytes: view.fileBytes,
    tensorBytes: view.tensorBytes,
    shards: shards.map((s) => ({
      path: s.path,
      fileBytes: s.header.fileSize,
      ggufVersion: s.header.version,
      alignment: s.header.alignment,
      dataOffset: s.header.dataOffset,
      tensorCount: s.header.tensors.length,
      tensorBytes: s.header.tensorBytes,
    })),
    hyperparameters: {
      blockCount: view.blockCount,
      contextLength: view.contextLength,
      embeddingLength: view.embeddingLength,
      feedForwardLength: view.feedForwardLength,
      headCount: view.headCount,
      headCountKv: view.headCountKv,
      headDim: view.headDim,
    },
    tokenizer: { model: view.tokenizerModel, vocabSize: view.vocabSize },
    chatTemplate: { present: view.hasChatTemplate, chars: typeof tmpl === 'string' ? tmpl.length : null },
    quantization: view.quantization.map((q) => ({ ...q })),
    layers: view.layers.map((l) => ({ index: l.index, bytes: l.bytes, tensors: l.tensors.map(tensorJson) })),
    persistent: { bytes: view.persistent.bytes, tensors: view.persistent.tensors.map(tensorJson) },
    moe: moeJson(view),
    // Metadata of every shard's first file only: the other shards carry split.* keys.
    metadata: (first?.header.kv ?? []).map(kvToJson),
  };
}
