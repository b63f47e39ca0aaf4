// A corpus of malformed GGUF files, one per failure class, for end-to-end tests of the CLI
// (every one must exit 2 with a message naming the problem and its offset).
import { GgufValueType as V } from './ggml-types.js';
import { ByteWriter, buildGguf, type GgufSpec } from './build-gguf.test-util.js';
import { tinySpec } from './tiny-models.test-util.js';
import type { GgufErrorCode } from './reader-errors.js';

export interface CorpusEntry {
  readonly name: string;
  readonly code: GgufErrorCode;
  readonly bytes: Uint8Array;
}

function withTensor(i: number, patch: Partial<NonNullable<GgufSpec['tensors']>[number]>): GgufSpec {
  const s = tinySpec();
  s.tensors = s.tensors!.map((t, j) => (j === i ? { ...t, ...patch } : t));
  return s;
}

function withKv(key: string, type: number, value?: unknown, raw?: Uint8Array): GgufSpec {
  const s = tinySpec();
  s.kv = [...s.kv!.filter((e) => e.key !== key), raw ? { key, type, raw } : { key, type, value }];
  return s;
}

export function malformedCorpus(): CorpusEntry[] {
  const b = (spec: GgufSpec) => buildGguf(spec).bytes;
  const valid = b(tinySpec());
  const e: CorpusEntry[] = [
    { name: 'bad-magic', code: 'BAD_MAGIC', bytes: b({ ...tinySpec(), magic: 'GGML' }) },
    { name: 'version-zero', code: 'BAD_VERSION', bytes: b({ ...tinySpec(), version: 0 }) },
    { name: 'version-swapped', code: 'BAD_VERSION', bytes: b({ ...tinySpec(), version: 0x03000000 }) },
    { name: 'version-unsupported', code: 'BAD_VERSION', bytes: b({ ...tinySpec(), version: 9 }) },
    { name: 'tensor-count', code: 'TENSOR_COUNT', bytes: b({ ...tinySpec(), tensorCount: 2n ** 40n }) },
    { name: 'kv-count', code: 'KV_COUNT', bytes: b({ ...tinySpec(), kvCount: 2n ** 40n }) },
    { name: 'string-beyond-file', code: 'STRING_TOO_LONG', bytes: b(withKv('general.name', V.STRING, undefined, new ByteWriter().u64(2n ** 29n).result())) },
    { name: 'string-over-cap', code: 'STRING_TOO_LONG', bytes: b(withKv('general.name', V.STRING, undefined, new ByteWriter().u64(2n ** 62n).result())) },
    { name: 'array-overflow', code: 'ARRAY_TOO_LONG', bytes: b(withKv('x.arr', V.ARRAY, { elementType: V.UINT64, items: [], count: 2n ** 61n })) },
    { name: 'value-type', code: 'BAD_VALUE_TYPE', bytes: b(withKv('x.bad', 99, undefined, new Uint8Array(4))) },
    { name: 'empty-key', code: 'EMPTY_KEY', bytes: b(withKv('', V.UINT8, 1)) },
    { name: 'duplicate-key', code: 'DUPLICATE_KEY', bytes: (() => { const s = tinySpec(); s.kv!.push({ ...s.kv![1]! }); return b(s); })() },
    { name: 'alignment-type', code: 'BAD_ALIGNMENT', bytes: b(withKv('general.alignment', V.STRING, '32')) },
    { name: 'alignment-zero', code: 'BAD_ALIGNMENT', bytes: b(withKv('general.alignment', V.UINT32, 0)) },
    { name: 'alignment-not-pow2', code: 'BAD_ALIGNMENT', bytes: b(withKv('general.alignment', V.UINT32, 24)) },
    { name: 'alignment-huge', code: 'BAD_ALIGNMENT', bytes: b(withKv('general.alignment', V.UINT32, 2 ** 30)) },
    { name: 'tensor-name-long', code: 'TENSOR_NAME', bytes: b(withTensor(0, { name: 't'.repeat(200) })) },
    { name: 'tensor-duplicate', code: 'DUPLICATE_TENSOR', bytes: b(withTensor(2, { name: 'token_embd.weight' })) },
    { name: 'n-dims', code: 'BAD_DIMS', bytes: b(withTensor(1, { nDims: 5, dims: [32, 1, 1, 1, 1] })) },
    { name: 'dim-zero', code: 'BAD_DIM', bytes: b(withTensor(1, { dims: [0] })) },
    { name: 'dim-negative', code: 'BAD_DIM', bytes: b(withTensor(1, { dims: [-32n] })) },
    { name: 'element-overflow', code: 'ELEMENT_OVERFLOW', bytes: buildGguf({ ...withTensor(0, { dims: [2n ** 32n, 2n ** 32n] }), dataBytes: 64 }).bytes },
    { name: 'tensor-type', code: 'UNKNOWN_TENSOR_TYPE', bytes: b(withTensor(0, { type: 77 })) },
    { name: 'row-block', code: 'ROW_NOT_BLOCK_MULTIPLE', bytes: b(withTensor(0, { type: 12 })) },
    { name: 'misaligned', code: 'TENSOR_MISALIGNED', bytes: b(withTensor(1, { offset: 4 })) },
    { name: 'overlap', code: 'TENSOR_OVERLAP', bytes: b(withTensor(1, { offset: 0 })) },
    { name: 'out-of-order', code: 'TENSOR_ORDER', bytes: b(withTensor(3, { offset: 0 })) },
    { name: 'data-beyond-eof', code: 'DATA_BEYOND_EOF', bytes: valid.subarray(0, valid.length - 1) },
    { name: 'truncated-header', code: 'TRUNCATED', bytes: valid.subarray(0, 30) },
    { name: 'block-count', code: 'BLOCK_COUNT', bytes: b(tinySpec({ blockCount: 40 })) },
    { name: 'missing-tensor', code: 'MISSING_TENSOR', bytes: b(tinySpec({ arch: 'gptneox', omit: ['output.weight'] })) },
  ];
  return e;
}
