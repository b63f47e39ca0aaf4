// One handcrafted file per failure class (after llama.cpp's tests/test-gguf.cpp): each is
// rejected with a GgufError whose code, message and byte offset name the problem.
import { describe, expect, it } from 'vitest';
import { parseGgufHeader } from './reader.js';
import { GgufError, type GgufErrorCode } from './reader-errors.js';
import { GgufValueType as V } from './ggml-types.js';
import { ByteWriter, buildGguf, type GgufSpec, type TensorSpec } from './build-gguf.test-util.js';
import { tinyModel } from './tiny-models.test-util.js';

function rejects(bytes: Uint8Array, code: GgufErrorCode, offset: number | null, message: RegExp): GgufError {
  let err: unknown;
  try {
    parseGgufHeader(bytes, bytes.length);
  } catch (e) {
    err = e;
  }
  expect(err, 'expected a GgufError').toBeInstanceOf(GgufError);
  const g = err as GgufError;
  expect(g.code).toBe(code);
  expect(g.offset).toBe(offset);
  expect(g.message).toMatch(message);
  if (offset !== null) expect(g.message).toContain(`byte offset ${offset}`);
  return g;
}

const F32 = 0;
const Q4_0 = 2;
const t = (name: string, dims: (number | bigint)[], type = F32, extra: Partial<TensorSpec> = {}): TensorSpec => ({ name, dims, type, ...extra });
const build = (spec: GgufSpec) => buildGguf(spec);

describe('malformed GGUF: header', () => {
  it('bad magic', () => {
    rejects(build({ magic: 'GGML' }).bytes, 'BAD_MAGIC', 0, /magic is 'GGML', expected 'GGUF'/);
  });
  it('big-endian magic', () => {
    rejects(build({ magic: 'FUGG' }).bytes, 'BAD_MAGIC', 0, /big-endian/);
  });
  it('version 0', () => {
    rejects(build({ version: 0 }).bytes, 'BAD_VERSION', 4, /version is 0/);
  });
  it('byte-swapped version', () => {
    rejects(build({ version: 0x03000000 }).bytes, 'BAD_VERSION', 4, /byte-swapped/);
  });
  it('unsupported versions 1 and 4', () => {
    rejects(build({ version: 1 }).bytes, 'BAD_VERSION', 4, /version 1 is not supported/);
    rejects(build({ version: 4 }).bytes, 'BAD_VERSION', 4, /version 4 is not supported/);
  });
  it('tensor count beyond what the file can hold', () => {
    rejects(build({ tensorCount: 1000n }).bytes, 'TENSOR_COUNT', 8, /tensor count 1000 is beyond/);
    rejects(build({ tensorCount: 2n ** 63n }).bytes, 'TENSOR_COUNT', 8, /tensor count \d+ is beyond/);
  });
  it('kv count beyond what the file can hold', () => {
    rejects(build({ kvCount: 1000n }).bytes, 'KV_COUNT', 16, /metadata count 1000 is beyond/);
    rejects(build({ kvCount: 2n ** 64n - 1n }).bytes, 'KV_COUNT', 16, /metadata count \d+ is beyond/);
  });
});

describe('malformed GGUF: metadata', () => {
  it('string length beyond the end of the file', () => {
    const w = new ByteWriter().u64(1000n).bytes(new TextEncoder().encode('short'));
    const { bytes, offsets } = build({ kv: [{ key: 'general.name', type: V.STRING, raw: w.result() }] });
    rejects(bytes, 'STRING_TOO_LONG', offsets.kv[0]! + 8 + 12 + 4, /length 1000 goes beyond the end of the file/);
  });
  it('string length over the sane cap', () => {
    const w = new ByteWriter().u64(2n ** 40n);
    const { bytes, offsets } = build({ kv: [{ key: 'general.name', type: V.STRING, raw: w.result() }] });
    rejects(bytes, 'STRING_TOO_LONG', offsets.kv[0]! + 24, /length 1099511627776 is over the limit/);
  });
  it('key length beyond the file', () => {
    const w = new ByteWriter().bytes(new TextEncoder().encode('GGUF')).u32(3).u64(0).u64(1).u64(2n ** 32n).zeros(16);
    rejects(w.result(), 'STRING_TOO_LONG', 24, /key length .* is over the limit/);
  });
  it('array count overflow', () => {
    const arr = { elementType: V.UINT32, items: [1, 2], count: 2n ** 62n };
    const { bytes, offsets } = build({ kv: [{ key: 'a', type: V.ARRAY, value: arr }] });
    rejects(bytes, 'ARRAY_TOO_LONG', offsets.kv[0]! + 9 + 4 + 4, /array length 4611686018427387904 is over the limit/);
  });
  it('array count beyond the file (within the cap)', () => {
    const arr = { elementType: V.STRING, items: ['x'], count: 1_000_000n };
    const { bytes, offsets } = build({ kv: [{ key: 'a', type: V.ARRAY, value: arr }] });
    rejects(bytes, 'ARRAY_TOO_LONG', offsets.kv[0]! + 17, /array of 1000000 string needs at least 8000000 bytes/);
  });
  it('too many array values in the whole header (bounded allocation)', () => {
    const arr = (n: number) => ({ elementType: V.UINT8, items: new Array(n).fill(0) });
    const { bytes, offsets } = build({ kv: [{ key: 'a', type: V.ARRAY, value: arr(600) }, { key: 'b', type: V.ARRAY, value: arr(600) }] });
    let err: unknown;
    try {
      parseGgufHeader(bytes, bytes.length, { maxTotalArrayValues: 1000 });
    } catch (e) {
      err = e;
    }
    expect((err as GgufError).code).toBe('ARRAY_TOO_LONG');
    expect((err as GgufError).offset).toBe(offsets.kv[1]! + 9 + 4 + 4);
    expect((err as GgufError).message).toMatch(/over its limit of 1000 array values/);
  });
  it('invalid value type', () => {
    const { bytes, offsets } = build({ kv: [{ key: 'k', type: 13, raw: new Uint8Array(8) }] });
    rejects(bytes, 'BAD_VALUE_TYPE', offsets.kv[0]! + 9, /metadata 'k' has invalid value type 13/);
  });
  it('invalid array element type', () => {
    const raw = new ByteWriter().u32(99).u64(1).u32(0).result();
    const { bytes, offsets } = build({ kv: [{ key: 'k', type: V.ARRAY, raw }] });
    rejects(bytes, 'BAD_VALUE_TYPE', offsets.kv[0]! + 13, /invalid value type 99/);
  });
  it('arrays nested too deep', () => {
    let v: { elementType: number; items: unknown[] } = { elementType: V.UINT8, items: [1] };
    for (let i = 0; i < 5; i++) v = { elementType: V.ARRAY, items: [v] };
    const { bytes } = build({ kv: [{ key: 'deep', type: V.ARRAY, value: v }] });
    rejects(bytes, 'ARRAY_TOO_DEEP', 24 + 12 + 4 + 4 * 12, /nests arrays 5 deep/);
  });
  it('bool that is neither 0 nor 1', () => {
    const { bytes, offsets } = build({ kv: [{ key: 'b', type: V.BOOL, raw: new Uint8Array([7]) }] });
    rejects(bytes, 'BAD_METADATA', offsets.kv[0]! + 13, /bool of value 7/);
  });
  it('empty key', () => {
    const { bytes, offsets } = build({ kv: [{ key: 'a', type: V.UINT8, value: 1 }, { key: '', type: V.UINT8, value: 1 }] });
    rejects(bytes, 'EMPTY_KEY', offsets.kv[1]!, /metadata #1 has an empty key/);
  });
  it('duplicate key', () => {
    const { bytes, offsets } = build({
      kv: [
        { key: 'general.name', type: V.STRING, value: 'a' },
        { key: 'general.name', type: V.STRING, value: 'b' },
      ],
    });
    rejects(bytes, 'DUPLICATE_KEY', offsets.kv[1]!, /duplicate metadata key 'general.name'/);
  });
});

describe('malformed GGUF: alignment', () => {
  const alignKv = (type: number, value: unknown) => build({ kv: [{ key: 'general.alignment', type, value }] });
  const valueAt = (o: { kv: number[] }) => o.kv[0]! + 8 + 'general.alignment'.length + 4;
  it('wrong type', () => {
    const { bytes, offsets } = alignKv(V.UINT64, 32n);
    rejects(bytes, 'BAD_ALIGNMENT', valueAt(offsets) - 4, /must be of type uint32 but is uint64/);
  });
  it('zero', () => {
    const { bytes, offsets } = alignKv(V.UINT32, 0);
    rejects(bytes, 'BAD_ALIGNMENT', valueAt(offsets), /general.alignment is 0/);
  });
  it('not a power of two', () => {
    const { bytes, offsets } = alignKv(V.UINT32, 48);
    rejects(bytes, 'BAD_ALIGNMENT', valueAt(offsets), /48 is not a power of two/);
  });
  it('absurdly large', () => {
    const { bytes, offsets } = alignKv(V.UINT32, 2 ** 31);
    rejects(bytes, 'BAD_ALIGNMENT', valueAt(offsets), /absurdly large/);
  });
});

describe('malformed GGUF: tensor infos', () => {
  it('tensor name too long', () => {
    const { bytes, offsets } = build({ tensors: [t('x'.repeat(64), [4])] });
    rejects(bytes, 'TENSOR_NAME', offsets.tensorInfo[0]!, /name is 64 bytes long; the limit is 63/);
  });
  it('duplicate tensor name', () => {
    const { bytes, offsets } = build({ tensors: [t('a', [8]), t('a', [8])] });
    rejects(bytes, 'DUPLICATE_TENSOR', offsets.tensorInfo[1]!, /duplicate tensor name 'a'/);
  });
  it('n_dims > 4', () => {
    const { bytes, offsets } = build({ tensors: [t('a', [1, 1, 1, 1, 8])] });
    rejects(bytes, 'BAD_DIMS', offsets.tensorInfo[0]! + 9, /has 5 dimensions; must be 1 to 4/);
  });
  it('zero dimension', () => {
    const { bytes, offsets } = build({ tensors: [t('a', [8, 0])] });
    rejects(bytes, 'BAD_DIM', offsets.tensorInfo[0]! + 9 + 4 + 8, /dimension 1 is 0; must be positive/);
  });
  it('negative dimension', () => {
    const { bytes, offsets } = build({ tensors: [t('a', [-8n])] });
    rejects(bytes, 'BAD_DIM', offsets.tensorInfo[0]! + 13, /dimension 0 is -8/);
  });
  it('element-count overflow', () => {
    const { bytes, offsets } = build({ tensors: [t('a', [2n ** 40n, 2n ** 40n])], dataBytes: 0 });
    rejects(bytes, 'ELEMENT_OVERFLOW', offsets.tensorInfo[0]! + 13 + 8, /element count overflows/);
  });
  it('unknown tensor type', () => {
    const { bytes, offsets } = build({ tensors: [t('a', [8], 4)] });
    rejects(bytes, 'UNKNOWN_TENSOR_TYPE', offsets.tensorInfo[0]! + 13 + 8, /unknown ggml type 4/);
    const b2 = build({ tensors: [t('a', [8], 1000)] });
    rejects(b2.bytes, 'UNKNOWN_TENSOR_TYPE', b2.offsets.tensorInfo[0]! + 21, /unknown ggml type 1000/);
  });
  it('row size not a multiple of the block size', () => {
    const { bytes, offsets } = build({ tensors: [t('a', [48, 2], Q4_0)] });
    rejects(bytes, 'ROW_NOT_BLOCK_MULTIPLE', offsets.tensorInfo[0]! + 13, /48 elements per row, not a multiple of the block size 32/);
  });
  it('misaligned tensor offset', () => {
    const { bytes, offsets } = build({ tensors: [t('a', [8]), t('b', [8], F32, { offset: 36 })] });
    rejects(bytes, 'TENSOR_MISALIGNED', offsets.tensorInfo[1]! + 13 + 8 + 4, /offset 36 is not a multiple of the alignment 32/);
  });
  it('overlapping tensors', () => {
    const { bytes, offsets } = build({ tensors: [t('a', [64]), t('b', [8], F32, { offset: 128 })] });
    rejects(bytes, 'TENSOR_OVERLAP', offsets.tensorInfo[1]! + 25, /'b' at 128 overlaps 'a' which ends at 256/);
  });
  it('offsets out of order', () => {
    const { bytes, offsets } = build({ tensors: [t('a', [8], F32, { offset: 64 }), t('b', [8], F32, { offset: 0 })] });
    // The first tensor must start at 0, so put the disorder after a valid pair.
    void bytes;
    void offsets;
    const b = build({ tensors: [t('a', [8]), t('b', [8], F32, { offset: 64 }), t('c', [8], F32, { offset: 32 })] });
    const err = (() => {
      try {
        parseGgufHeader(b.bytes, b.bytes.length);
      } catch (e) {
        return e as GgufError;
      }
      return null;
    })();
    // 'b' at 64 leaves a gap first; build a file where only the order is wrong instead.
    expect(err?.code).toBe('TENSOR_GAP');
    const c = build({ tensors: [t('a', [8]), t('b', [8]), t('c', [8], F32, { offset: 0 })] });
    rejects(c.bytes, 'TENSOR_ORDER', c.offsets.tensorInfo[2]! + 25, /offset 0 comes before the previous tensor 'b' \(32\): offsets out of order/);
  });
  it('gap between tensors (llama.cpp requires packed data)', () => {
    const { bytes, offsets } = build({ tensors: [t('a', [8]), t('b', [8], F32, { offset: 64 })] });
    rejects(bytes, 'TENSOR_GAP', offsets.tensorInfo[1]! + 25, /leaves a gap after 'a' \(expected 32\)/);
  });
  it('data beyond end of file', () => {
    const { bytes, offsets } = build({ tensors: [t('a', [8]), t('b', [32])], dataBytes: 64 });
    rejects(bytes, 'DATA_BEYOND_EOF', offsets.tensorInfo[1]!, /tensor 'b' .*goes beyond the end of the file/);
  });
  it('tensor larger than the whole file', () => {
    const { bytes, offsets } = build({ tensors: [t('a', [2n ** 40n])], dataBytes: 0 });
    rejects(bytes, 'DATA_BEYOND_EOF', offsets.tensorInfo[0]!, /more than the whole file/);
  });
});

describe('malformed GGUF: truncation at every boundary', () => {
  it('every prefix of a valid file is rejected with a GgufError, never another exception', () => {
    const bytes = tinyModel({ layers: 1, vocab: 4 });
    const h = parseGgufHeader(bytes, bytes.length);
    const seen = new Set<string>();
    // Every byte of the header region, then a handful of cuts inside the payload.
    const cuts = [...Array.from({ length: h.dataOffset + 1 }, (_, i) => i), h.dataOffset + 1, Math.floor(bytes.length / 2), bytes.length - 1];
    for (const n of cuts) {
      const cut = bytes.subarray(0, n);
      let err: unknown = null;
      try {
        parseGgufHeader(cut, cut.length);
      } catch (e) {
        err = e;
      }
      expect(err, `prefix of ${n} bytes`).toBeInstanceOf(GgufError);
      const g = err as GgufError;
      expect(g.message).toMatch(/byte offset \d+/);
      if (n < h.dataOffset) expect(['TRUNCATED', 'TENSOR_COUNT', 'KV_COUNT', 'STRING_TOO_LONG', 'ARRAY_TOO_LONG', 'DATA_BEYOND_EOF']).toContain(g.code);
      else expect(['DATA_BEYOND_EOF', 'TRUNCATED']).toContain(g.code);
      seen.add(g.code);
    }
    expect(seen.has('TRUNCATED')).toBe(true);
    expect(seen.has('DATA_BEYOND_EOF')).toBe(true);
  });
});
