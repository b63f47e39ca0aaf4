// ggml tensor types as stored in GGUF files, with block geometry from ggml-common.h of the
// pinned llama.cpp. The byte size of a row is (elements / blockSize) * typeSize.

export interface GgmlTypeInfo {
  readonly id: number;
  readonly name: string;
  /** Elements per block. */
  readonly blockSize: number;
  /** Bytes per block. */
  readonly typeSize: number;
}

const T = (id: number, name: string, blockSize: number, typeSize: number): GgmlTypeInfo => ({
  id,
  name,
  blockSize,
  typeSize,
});

export const GGML_TYPES: readonly GgmlTypeInfo[] = [
  T(0, 'F32', 1, 4),
  T(1, 'F16', 1, 2),
  T(2, 'Q4_0', 32, 18),
  T(3, 'Q4_1', 32, 20),
  T(6, 'Q5_0', 32, 22),
  T(7, 'Q5_1', 32, 24),
  T(8, 'Q8_0', 32, 34),
  T(9, 'Q8_1', 32, 36),
  T(10, 'Q2_K', 256, 84),
  T(11, 'Q3_K', 256, 110),
  T(12, 'Q4_K', 256, 144),
  T(13, 'Q5_K', 256, 176),
  T(14, 'Q6_K', 256, 210),
  T(15, 'Q8_K', 256, 292),
  T(16, 'IQ2_XXS', 256, 66),
  T(17, 'IQ2_XS', 256, 74),
  T(18, 'IQ3_XXS', 256, 98),
  T(19, 'IQ1_S', 256, 50),
  T(20, 'IQ4_NL', 32, 18),
  T(21, 'IQ3_S', 256, 110),
  T(22, 'IQ2_S', 256, 82),
  T(23, 'IQ4_XS', 256, 136),
  T(24, 'I8', 1, 1),
  T(25, 'I16', 1, 2),
  T(26, 'I32', 1, 4),
  T(27, 'I64', 1, 8),
  T(28, 'F64', 1, 8),
  T(29, 'IQ1_M', 256, 56),
  T(30, 'BF16', 1, 2),
  T(34, 'TQ1_0', 256, 54),
  T(35, 'TQ2_0', 256, 66),
  T(39, 'MXFP4', 32, 17),
  T(40, 'NVFP4', 64, 36),
  T(41, 'Q1_0', 128, 18),
  T(42, 'Q2_0', 64, 18),
];

const BY_ID = new Map(GGML_TYPES.map((t) => [t.id, t]));
const BY_NAME = new Map(GGML_TYPES.map((t) => [t.name, t]));

export function ggmlTypeById(id: number): GgmlTypeInfo | undefined {
  return BY_ID.get(id);
}

export function ggmlTypeByName(name: string): GgmlTypeInfo | undefined {
  return BY_NAME.get(name.toUpperCase());
}

/** GGUF metadata value types (gguf.h). */
export enum GgufValueType {
  UINT8 = 0,
  INT8 = 1,
  UINT16 = 2,
  INT16 = 3,
  UINT32 = 4,
  INT32 = 5,
  FLOAT32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  UINT64 = 10,
  INT64 = 11,
  FLOAT64 = 12,
}

export const GGUF_MAGIC = 0x46554747; // "GGUF" little-endian
export const GGUF_DEFAULT_ALIGNMENT = 32;
