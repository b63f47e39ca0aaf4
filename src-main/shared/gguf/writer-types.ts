// Input model of the GGUF writer. Values use the same shapes as the reader's (reader-types.ts),
// so a parsed KV pair can be written back unchanged; `raw` carries an already-encoded value
// (type tag + payload) copied byte for byte from another file.
import type { GgufValueType } from './ggml-types.js';

export type WriterScalar = number | bigint | boolean | string;

export interface WriterArray {
  readonly elementType: GgufValueType;
  readonly items: ArrayLike<WriterValue>;
}

export type WriterValue = WriterScalar | WriterArray;

export interface TypedKv {
  readonly key: string;
  readonly type: GgufValueType;
  readonly value: WriterValue;
}

export interface RawKv {
  readonly key: string;
  /** u32 value type followed by the encoded value, exactly as in a GGUF file. */
  readonly raw: Uint8Array;
}

export type WriterKv = TypedKv | RawKv;

export interface WriterTensor {
  readonly name: string;
  /** ne[0..n_dims), innermost first, as ggml stores them. */
  readonly dims: readonly number[];
  /** ggml type id (ggml-types.ts). */
  readonly typeId: number;
}

export interface TensorPlacement extends WriterTensor {
  readonly nElements: number;
  readonly nbytes: number;
  /** Offset relative to the data section, as written in the tensor info. */
  readonly offset: number;
  /** Absolute offset in the file. */
  readonly start: number;
}

export interface GgufLayout {
  /** Everything before the data section: header, KV pairs, tensor infos, padding. */
  readonly header: Uint8Array;
  readonly alignment: number;
  /** Absolute offset of the data section (= header.length). */
  readonly dataOffset: number;
  readonly tensors: readonly TensorPlacement[];
  /** Total file size, the last tensor padded to the alignment as gguf.cpp writes it. */
  readonly fileSize: number;
}
