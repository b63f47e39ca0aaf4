// The inspection view's data, read defensively from `api.inspect()` (typed `unknown` in the
// API; the document is `ramforge inspect --json`, InspectReport in
// src-main/shared/gguf/inspect-report.ts). Field names are matched in camelCase or snake_case.
import { arr, field, isObj, num, numLike, str } from './fields.js';

export interface TensorRow {
  name: string;
  type: string;
  bytes: number;
  dims: number[];
}

export interface InspectLayer {
  index: number;
  bytes: number;
  tensors: TensorRow[];
}

export interface QuantRow {
  type: string;
  count: number;
  bytes: number;
}

export interface MetaRow {
  key: string;
  value: string;
}

export interface InspectInfo {
  name: string;
  arch: string;
  nParams: number | null;
  fileBytes: number | null;
  tensorBytes: number | null;
  ctxTrain: number | null;
  tokenizer: string | null;
  vocabSize: number | null;
  chatTemplate: string | null;
  shards: string[];
  quant: QuantRow[];
  layers: InspectLayer[];
  persistentBytes: number | null;
  persistent: TensorRow[];
  metadata: MetaRow[];
}

function tensorRow(t: unknown): TensorRow {
  const dims = arr(t, 'dims', 'shape', 'ne').filter((d): d is number => typeof d === 'number');
  return {
    name: str(t, 'name') ?? '?',
    type: str(t, 'type', 'typeName', 'dtype') ?? '?',
    bytes: num(t, 'bytes', 'nbytes', 'size') ?? 0,
    dims,
  };
}

function quantRows(v: unknown): QuantRow[] {
  if (Array.isArray(v)) {
    return v.map((q) => ({
      type: str(q, 'type', 'typeName', 'name') ?? '?',
      count: num(q, 'count', 'tensors', 'nTensors') ?? 0,
      bytes: num(q, 'bytes', 'nbytes') ?? 0,
    }));
  }
  if (isObj(v)) {
    return Object.entries(v).map(([type, q]) => ({
      type,
      count: typeof q === 'number' ? q : num(q, 'count', 'tensors', 'nTensors') ?? 0,
      bytes: num(q, 'bytes', 'nbytes') ?? 0,
    }));
  }
  return [];
}

const ARRAY_PREVIEW = 6;

/** One metadata value as text; long arrays are summarised (first items, count). */
export function summariseValue(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'string') return v.length > 400 ? `${v.slice(0, 400)}… (${v.length} chars)` : v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v)) {
    const head = v.slice(0, ARRAY_PREVIEW).map((x) => (typeof x === 'string' ? JSON.stringify(x) : summariseValue(x)));
    return v.length > ARRAY_PREVIEW ? `[${head.join(', ')}, …] (${v.length} items)` : `[${head.join(', ')}]`;
  }
  if (isObj(v)) {
    const items = field(v, 'items', 'value', 'values');
    if (Array.isArray(items)) return summariseValue(items);
    const n = num(v, 'length', 'count', 'n');
    if (n !== null) return `[array of ${n}${str(v, 'type', 'elementType') ? ` ${str(v, 'type', 'elementType')}` : ''}]`;
    return JSON.stringify(v).slice(0, 400);
  }
  return String(v);
}

function metadataRows(v: unknown): MetaRow[] {
  if (Array.isArray(v)) {
    return v.map((kv) => ({ key: str(kv, 'key', 'name') ?? '?', value: summariseValue(field(kv, 'value')) }));
  }
  if (isObj(v)) return Object.entries(v).map(([key, val]) => ({ key, value: summariseValue(val) }));
  return [];
}

function rawMeta(v: unknown, key: string): unknown {
  if (Array.isArray(v)) return field(v.find((kv) => str(kv, 'key', 'name') === key), 'value');
  if (isObj(v)) return v[key];
  return undefined;
}

export function normalizeInspect(raw: unknown): InspectInfo {
  const meta = field(raw, 'metadata', 'kv', 'meta');
  const metaStr = (k: string): string | null => {
    const v = rawMeta(meta, k);
    return typeof v === 'string' ? v : null;
  };
  const arch = str(raw, 'architecture', 'arch') ?? metaStr('general.architecture') ?? 'unknown';
  const tok = field(raw, 'tokenizer');
  const layers = arr(raw, 'layers', 'blocks').map((l, i) => {
    const tensors = arr(l, 'tensors').map(tensorRow);
    return {
      index: num(l, 'index', 'layer', 'block') ?? i,
      bytes: num(l, 'bytes', 'totalBytes', 'weightBytes') ?? tensors.reduce((s, t) => s + t.bytes, 0),
      tensors,
    };
  });
  const persistentRaw = field(raw, 'persistent', 'persistentTensors', 'nonLayer', 'globalTensors');
  const persistent = (Array.isArray(persistentRaw) ? persistentRaw : arr(persistentRaw, 'tensors')).map(tensorRow);
  const templ = field(raw, 'chatTemplate');
  const hyper = field(raw, 'hyperparameters');
  return {
    name: str(raw, 'name', 'modelName') ?? metaStr('general.name') ?? str(raw, 'input', 'file', 'path')?.split(/[\\/]/).pop() ?? 'unnamed model',
    arch,
    nParams: num(raw, 'parameterCount', 'nParams', 'params', 'parameters'),
    fileBytes: num(raw, 'fileBytes', 'fileSize', 'sizeBytes'),
    tensorBytes: num(raw, 'tensorBytes', 'weightBytes'),
    ctxTrain: num(raw, 'contextLength', 'ctxTrain', 'nCtxTrain') ?? num(hyper, 'contextLength') ?? numLike(rawMeta(meta, `${arch}.context_length`)),
    tokenizer: typeof tok === 'string' ? tok : str(tok, 'model') ?? str(raw, 'tokenizerModel') ?? metaStr('tokenizer.ggml.model'),
    vocabSize: num(raw, 'vocabSize', 'nVocab') ?? num(tok, 'vocabSize', 'nVocab'),
    chatTemplate: typeof templ === 'string' ? templ : metaStr('tokenizer.chat_template'),
    shards: arr(raw, 'shards', 'files').map((s) => (typeof s === 'string' ? s : str(s, 'path', 'name') ?? '?')),
    quant: quantRows(field(raw, 'quantization', 'quant', 'quantSummary', 'types')),
    layers,
    persistentBytes: num(raw, 'persistentBytes') ?? num(persistentRaw, 'bytes') ?? (persistent.length ? persistent.reduce((s, t) => s + t.bytes, 0) : null),
    persistent,
    metadata: metadataRows(meta),
  };
}
