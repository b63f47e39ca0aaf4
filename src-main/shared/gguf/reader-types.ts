// The parsed shape of a GGUF header. Numbers: every count, dimension, offset and size is a JS
// `number` (the reader rejects anything above 2^53 - 1, which no real file can reach). Metadata
// values of type UINT64/INT64 stay `bigint` so that no value is ever rounded; `kvInteger()` and
// the other readers in metadata.ts, and `valueToJson()` in json-value.ts, turn them into numbers
// where that is exact.
import type { GgufValueType } from './ggml-types.js';

export type GgufScalar = number | bigint | boolean | string;

export interface GgufArray {
  readonly elementType: GgufValueType;
  /** Complete: never truncated (big arrays are shortened only for display, by valueSummary in json-value.ts). */
  readonly items: GgufValue[];
}

export type GgufValue = GgufScalar | GgufArray;

export interface GgufKv {
  readonly key: string;
  readonly type: GgufValueType;
  readonly value: GgufValue;
  /** Absolute offset of the key's length prefix. */
  readonly offset: number;
  /** Absolute offset of the value (after the type tag). */
  readonly valueOffset: number;
}

export interface GgufTensorInfo {
  readonly name: string;
  /** ne[0..n_dims), innermost first, as ggml stores them. */
  readonly dims: number[];
  readonly typeId: number;
  readonly typeName: string;
  readonly nElements: number;
  readonly nbytes: number;
  /** Offset relative to the start of the data section (as stored in the file). */
  readonly offset: number;
  /** Absolute byte range in the file: [start, end). */
  readonly start: number;
  readonly end: number;
  /** Absolute offset of this tensor's info record in the header. */
  readonly infoOffset: number;
}

export interface GgufHeader {
  readonly version: number;
  readonly kv: GgufKv[];
  readonly kvByKey: ReadonlyMap<string, GgufKv>;
  readonly tensors: GgufTensorInfo[];
  readonly alignment: number;
  /** Absolute offset where the tensor data section starts (= bytes of header + padding). */
  readonly dataOffset: number;
  /** Absolute offset where the tensor info table starts. */
  readonly tensorInfoOffset: number;
  readonly fileSize: number;
  /** Sum of tensor nbytes (payload without alignment padding). */
  readonly tensorBytes: number;
}

export interface ParseOptions {
  /** Longest string value accepted (bytes). Default 64 MiB. */
  readonly maxStringBytes?: number;
  /** Longest metadata key accepted (bytes). Default 65 535. */
  readonly maxKeyBytes?: number;
  /** Most elements in one metadata array. Default 2^22 (4 Mi; real vocabularies and merges are under 1 Mi). */
  readonly maxArrayElements?: number;
  /** Most array elements in the whole header (a nested array counts 8). Default 2^23. */
  readonly maxTotalArrayValues?: number;
  /** Deepest array nesting accepted. Default 4. */
  readonly maxArrayDepth?: number;
  /** Largest accepted general.alignment. Default 1 MiB. */
  readonly maxAlignment?: number;
}
