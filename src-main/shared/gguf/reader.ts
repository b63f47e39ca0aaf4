// The hardened GGUF header reader. Pure: it takes a prefix of the file's bytes plus the file's
// total size and returns the parsed header, or throws a GgufError naming the problem and the
// byte offset, or throws GgufNeedMoreBytes when the prefix is too short (see gguf-file.ts).
// Checks follow llama.cpp's gguf.cpp and add the ones it leaves to the model loader.
import { GGUF_DEFAULT_ALIGNMENT, GGUF_MAGIC, GgufValueType, ggmlTypeById } from './ggml-types.js';
import { Cursor } from './cursor.js';
import { GgufError } from './reader-errors.js';
import type { GgufArray, GgufHeader, GgufKv, GgufTensorInfo, GgufValue, ParseOptions } from './reader-types.js';

export type { GgufHeader, GgufKv, GgufTensorInfo, GgufValue, GgufArray, ParseOptions } from './reader-types.js';
export { GgufError, GgufNeedMoreBytes } from './reader-errors.js';

/** GGML_MAX_NAME in ggml.h: names must be shorter than 64 bytes. */
export const MAX_TENSOR_NAME_BYTES = 63;
export const MAX_DIMS = 4;
export const SUPPORTED_VERSIONS = [2, 3] as const;

/** Smallest possible encodings of a KV pair (empty key, u8 value) and of a tensor info (no dims). */
const MIN_KV_BYTES = 8 + 4 + 1;
const MIN_TENSOR_INFO_BYTES = 8 + 4 + 4 + 8;

/** Bytes of one element of a fixed-size value type, or the minimum encoding of the others. */
const MIN_VALUE_BYTES: Record<number, number> = {
  [GgufValueType.UINT8]: 1,
  [GgufValueType.INT8]: 1,
  [GgufValueType.UINT16]: 2,
  [GgufValueType.INT16]: 2,
  [GgufValueType.UINT32]: 4,
  [GgufValueType.INT32]: 4,
  [GgufValueType.FLOAT32]: 4,
  [GgufValueType.BOOL]: 1,
  [GgufValueType.STRING]: 8,
  [GgufValueType.ARRAY]: 12,
  [GgufValueType.UINT64]: 8,
  [GgufValueType.INT64]: 8,
  [GgufValueType.FLOAT64]: 8,
};

const DEFAULTS: Required<ParseOptions> = {
  maxStringBytes: 64 * 1024 * 1024,
  maxKeyBytes: 65_535,
  maxArrayElements: 2 ** 22,
  maxTotalArrayValues: 2 ** 23,
  maxArrayDepth: 4,
  maxAlignment: 1024 * 1024,
};

export function ggufValueTypeName(t: number): string {
  return GgufValueType[t]?.toLowerCase() ?? `type ${t}`;
}

export function parseGgufHeader(bytes: Uint8Array, fileSize: number, options: ParseOptions = {}): GgufHeader {
  const opts = { ...DEFAULTS, ...options };
  if (!Number.isSafeInteger(fileSize) || fileSize < bytes.length) throw new RangeError('fileSize must cover the given bytes');
  const c = new Cursor(bytes, fileSize);
  c.valuesLeft = opts.maxTotalArrayValues;
  const version = readMagicAndVersion(c, bytes);
  const { tensorCount, kvCount } = readCounts(c);
  const { kv, kvByKey } = readMetadata(c, kvCount, opts);
  const alignment = readAlignment(kvByKey.get('general.alignment'), opts.maxAlignment);
  const tensorInfoOffset = c.pos;
  const pending: PendingTensor[] = [];
  const names = new Set<string>();
  for (let i = 0; i < tensorCount; i++) {
    const t = readTensorInfo(c, i, names, alignment, fileSize, opts);
    checkTensorPlacement(t, pending[pending.length - 1], alignment);
    pending.push(t);
  }
  const { dataOffset, tensors, tensorBytes } = placeTensorData(c, pending, tensorCount, alignment, fileSize);
  return { version, kv, kvByKey, tensors, alignment, dataOffset, tensorInfoOffset, fileSize, tensorBytes };
}

type PendingTensor = Omit<GgufTensorInfo, 'start' | 'end'> & { offAt: number };

function readMagicAndVersion(c: Cursor, bytes: Uint8Array): number {
  c.where = 'header';
  c.ensure(4, 'magic');
  const magic = c.u32('magic');
  if (magic !== GGUF_MAGIC) {
    const shown = Array.from(bytes.subarray(0, 4), (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '?')).join('');
    const swapped = magic === 0x47475546;
    throw new GgufError(
      'BAD_MAGIC',
      swapped ? `magic is 'FUGG': a big-endian GGUF file, which is not supported` : `not a GGUF file: magic is '${shown}', expected 'GGUF'`,
      0,
    );
  }
  const version = c.u32('version');
  if (version === 0) throw new GgufError('BAD_VERSION', 'GGUF version is 0', 4);
  if ((version & 0xffff) === 0) {
    throw new GgufError('BAD_VERSION', `GGUF version ${version} (0x${version.toString(16)}) looks byte-swapped: a big-endian file?`, 4);
  }
  if (!(SUPPORTED_VERSIONS as readonly number[]).includes(version)) {
    throw new GgufError('BAD_VERSION', `GGUF version ${version} is not supported (supported: 2, 3)`, 4);
  }
  return version;
}

/** The tensor and metadata counts, checked against what the rest of the file can hold. */
function readCounts(c: Cursor): { tensorCount: number; kvCount: number } {
  const tensorCount = c.u64Safe('tensor count', (v, at) => new GgufError('TENSOR_COUNT', `tensor count ${v} is beyond what the file can hold`, at));
  const kvCount = c.u64Safe('kv count', (v, at) => new GgufError('KV_COUNT', `metadata count ${v} is beyond what the file can hold`, at));
  const afterCounts = c.remainingInFile();
  if (tensorCount * MIN_TENSOR_INFO_BYTES > afterCounts) {
    throw new GgufError('TENSOR_COUNT', `tensor count ${tensorCount} is beyond what the file can hold (${afterCounts} bytes remain, each tensor needs at least ${MIN_TENSOR_INFO_BYTES})`, 8);
  }
  if (kvCount * MIN_KV_BYTES + tensorCount * MIN_TENSOR_INFO_BYTES > afterCounts) {
    throw new GgufError('KV_COUNT', `metadata count ${kvCount} is beyond what the file can hold (${afterCounts} bytes remain, each pair needs at least ${MIN_KV_BYTES})`, 16);
  }
  return { tensorCount, kvCount };
}

function readMetadata(c: Cursor, kvCount: number, opts: Required<ParseOptions>): { kv: GgufKv[]; kvByKey: Map<string, GgufKv> } {
  const kv: GgufKv[] = [];
  const kvByKey = new Map<string, GgufKv>();
  for (let i = 0; i < kvCount; i++) {
    const offset = c.pos;
    c.where = `metadata #${i}`;
    const key = c.string('key', opts.maxKeyBytes);
    if (key.length === 0) throw new GgufError('EMPTY_KEY', `metadata #${i} has an empty key`, offset);
    if (kvByKey.has(key)) throw new GgufError('DUPLICATE_KEY', `duplicate metadata key '${key}'`, offset);
    c.where = `metadata '${key}'`;
    const typeAt = c.pos;
    const type = c.u32('value type');
    checkValueType(type, key, typeAt);
    const valueOffset = c.pos;
    const value = readValue(c, type, key, 0, opts);
    const entry: GgufKv = { key, type, value, offset, valueOffset };
    kv.push(entry);
    kvByKey.set(key, entry);
  }
  return { kv, kvByKey };
}

/** Tensor info #i: its name, dimensions and type checked, its size within the file, its offset aligned. */
function readTensorInfo(c: Cursor, i: number, names: Set<string>, alignment: number, fileSize: number, opts: Required<ParseOptions>): PendingTensor {
  const infoOffset = c.pos;
  c.where = `tensor #${i}`;
  const name = c.string('name', opts.maxStringBytes);
  if (name.length === 0) throw new GgufError('TENSOR_NAME', `tensor #${i} has an empty name`, infoOffset);
  const nameBytes = utf8Length(name);
  if (nameBytes > MAX_TENSOR_NAME_BYTES) {
    throw new GgufError('TENSOR_NAME', `tensor #${i} name is ${nameBytes} bytes long; the limit is ${MAX_TENSOR_NAME_BYTES}`, infoOffset);
  }
  if (names.has(name)) throw new GgufError('DUPLICATE_TENSOR', `duplicate tensor name '${name}'`, infoOffset);
  names.add(name);
  c.where = `tensor '${name}'`;
  const nDimsAt = c.pos;
  const { dims, elements } = readDims(c, name);
  const typeAt = c.pos;
  const typeId = c.u32('type');
  const info = ggmlTypeById(typeId);
  if (!info) throw new GgufError('UNKNOWN_TENSOR_TYPE', `tensor '${name}' has unknown ggml type ${typeId}`, typeAt);
  const ne0 = dims[0] as number;
  if (ne0 % info.blockSize !== 0) {
    throw new GgufError(
      'ROW_NOT_BLOCK_MULTIPLE',
      `tensor '${name}' of type ${info.name} has ${ne0} elements per row, not a multiple of the block size ${info.blockSize}`,
      nDimsAt + 4,
    );
  }
  const nElements = Number(elements);
  const nbytes = (nElements / info.blockSize) * info.typeSize;
  if (nbytes > fileSize) {
    throw new GgufError('DATA_BEYOND_EOF', `tensor '${name}' needs ${nbytes} bytes of data, more than the whole file (${fileSize} bytes)`, infoOffset);
  }
  const offAt = c.pos;
  const offset = c.u64Safe('offset', (v, at) => new GgufError('DATA_BEYOND_EOF', `tensor '${name}' offset ${v} is beyond the end of the file`, at));
  if (offset % alignment !== 0) {
    throw new GgufError('TENSOR_MISALIGNED', `tensor '${name}' offset ${offset} is not a multiple of the alignment ${alignment}`, offAt);
  }
  return { name, dims, typeId, typeName: info.name, nElements, nbytes, offset, infoOffset, offAt };
}

function readDims(c: Cursor, name: string): { dims: number[]; elements: bigint } {
  const nDimsAt = c.pos;
  const nDims = c.u32('n_dims');
  if (nDims === 0 || nDims > MAX_DIMS) {
    throw new GgufError('BAD_DIMS', `tensor '${name}' has ${nDims} dimensions; must be 1 to ${MAX_DIMS}`, nDimsAt);
  }
  const dims: number[] = [];
  let elements = 1n;
  for (let d = 0; d < nDims; d++) {
    const dimAt = c.pos;
    const raw = c.i64(`dimension ${d}`);
    if (raw <= 0n) throw new GgufError('BAD_DIM', `tensor '${name}' dimension ${d} is ${raw}; must be positive`, dimAt);
    elements *= raw;
    if (elements > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new GgufError('ELEMENT_OVERFLOW', `tensor '${name}' element count overflows (over 2^53 - 1 at dimension ${d})`, dimAt);
    }
    dims.push(Number(raw));
  }
  return { dims, elements };
}

/** Tensor data packed as llama.cpp requires: in order, no overlap, no gap, the first at 0. */
function checkTensorPlacement(t: PendingTensor, prev: PendingTensor | undefined, alignment: number): void {
  const { name, offset, offAt } = t;
  if (prev) {
    if (offset < prev.offset) {
      throw new GgufError('TENSOR_ORDER', `tensor '${name}' offset ${offset} comes before the previous tensor '${prev.name}' (${prev.offset}): offsets out of order`, offAt);
    }
    const prevEnd = prev.offset + prev.nbytes;
    if (offset < prevEnd) {
      throw new GgufError('TENSOR_OVERLAP', `tensor '${name}' at ${offset} overlaps '${prev.name}' which ends at ${prevEnd}`, offAt);
    }
    const expected = alignUp(prevEnd, alignment);
    if (offset !== expected) {
      throw new GgufError('TENSOR_GAP', `tensor '${name}' offset ${offset} leaves a gap after '${prev.name}' (expected ${expected}); llama.cpp requires packed tensor data`, offAt);
    }
  } else if (offset !== 0) {
    throw new GgufError('TENSOR_GAP', `first tensor '${name}' starts at data offset ${offset}, expected 0`, offAt);
  }
}

/** The data section's start, and each tensor's byte range in the file, inside it. */
function placeTensorData(c: Cursor, pending: PendingTensor[], tensorCount: number, alignment: number, fileSize: number) {
  c.where = 'data section';
  const dataOffset = tensorCount > 0 ? alignUp(c.pos, alignment) : c.pos;
  if (dataOffset > fileSize) {
    throw new GgufError('TRUNCATED', `file is truncated: the data section would start at ${dataOffset}, past the end of the file (${fileSize} bytes)`, c.pos);
  }
  let tensorBytes = 0;
  const tensors: GgufTensorInfo[] = pending.map(({ offAt: _, ...t }) => {
    const start = dataOffset + t.offset;
    const end = start + t.nbytes;
    if (end > fileSize) {
      throw new GgufError('DATA_BEYOND_EOF', `tensor '${t.name}' data [${start}, ${end}) goes beyond the end of the file (${fileSize} bytes)`, t.infoOffset);
    }
    tensorBytes += t.nbytes;
    return { ...t, start, end };
  });
  return { dataOffset, tensors, tensorBytes };
}

function alignUp(n: number, a: number): number {
  const r = n % a;
  return r === 0 ? n : n + (a - r);
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code < 0x80) n += 1;
    else if (code < 0x800) n += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

function checkValueType(type: number, key: string, at: number): void {
  if (MIN_VALUE_BYTES[type] === undefined) {
    throw new GgufError('BAD_VALUE_TYPE', `metadata '${key}' has invalid value type ${type}`, at);
  }
}

function readValue(c: Cursor, type: GgufValueType, key: string, depth: number, opts: Required<ParseOptions>): GgufValue {
  switch (type) {
    case GgufValueType.UINT8:
      return c.u8('u8 value');
    case GgufValueType.INT8:
      return c.i8('i8 value');
    case GgufValueType.UINT16:
      return c.u16('u16 value');
    case GgufValueType.INT16:
      return c.i16('i16 value');
    case GgufValueType.UINT32:
      return c.u32('u32 value');
    case GgufValueType.INT32:
      return c.i32('i32 value');
    case GgufValueType.FLOAT32:
      return c.f32('f32 value');
    case GgufValueType.BOOL: {
      const at = c.pos;
      const b = c.u8('bool value');
      if (b > 1) throw new GgufError('BAD_METADATA', `metadata '${key}' has a bool of value ${b}; must be 0 or 1`, at);
      return b === 1;
    }
    case GgufValueType.STRING:
      return c.string('string value', opts.maxStringBytes);
    case GgufValueType.UINT64:
      return c.u64('u64 value');
    case GgufValueType.INT64:
      return c.i64('i64 value');
    case GgufValueType.FLOAT64:
      return c.f64('f64 value');
    case GgufValueType.ARRAY:
      return readArray(c, key, depth + 1, opts);
    default:
      throw new GgufError('BAD_VALUE_TYPE', `metadata '${key}' has invalid value type ${type as number}`, c.pos - 4);
  }
}

function readArray(c: Cursor, key: string, depth: number, opts: Required<ParseOptions>): GgufArray {
  const at = c.pos;
  if (depth > opts.maxArrayDepth) {
    throw new GgufError('ARRAY_TOO_DEEP', `metadata '${key}' nests arrays ${depth} deep; the limit is ${opts.maxArrayDepth}`, at);
  }
  const elementType = c.u32('array element type') as GgufValueType;
  checkValueType(elementType, key, at);
  const countAt = c.pos;
  const count = c.u64('array length');
  const minBytes = MIN_VALUE_BYTES[elementType] as number;
  if (count > BigInt(opts.maxArrayElements)) {
    throw new GgufError('ARRAY_TOO_LONG', `metadata '${key}' array length ${count} is over the limit of ${opts.maxArrayElements}`, countAt);
  }
  const n = Number(count);
  if (n * minBytes > c.remainingInFile()) {
    throw new GgufError(
      'ARRAY_TOO_LONG',
      `metadata '${key}' array of ${n} ${ggufValueTypeName(elementType)} needs at least ${n * minBytes} bytes but only ${c.remainingInFile()} remain in the file`,
      countAt,
    );
  }
  const cost = elementType === GgufValueType.ARRAY ? 8 * n : n;
  if (cost > c.valuesLeft) {
    throw new GgufError('ARRAY_TOO_LONG', `metadata '${key}' array of ${n} ${ggufValueTypeName(elementType)} takes the header over its limit of ${opts.maxTotalArrayValues} array values`, countAt);
  }
  c.valuesLeft -= cost;
  // Fixed-size elements: check the whole run is present before allocating anything.
  if (elementType !== GgufValueType.STRING && elementType !== GgufValueType.ARRAY) {
    c.ensure(n * minBytes, 'array data');
    const get = FIXED_GETTERS[elementType];
    if (get) return { elementType, items: c.run(n, minBytes, get) };
  }
  const items: GgufValue[] = [];
  if (elementType === GgufValueType.STRING) {
    for (let i = 0; i < n; i++) items.push(c.string('string value', opts.maxStringBytes));
    return { elementType, items };
  }
  for (let i = 0; i < n; i++) items.push(readValue(c, elementType, key, depth, opts));
  return { elementType, items };
}

const FIXED_GETTERS: Partial<Record<number, (v: DataView, at: number) => GgufValue>> = {
  [GgufValueType.UINT8]: (v, at) => v.getUint8(at),
  [GgufValueType.INT8]: (v, at) => v.getInt8(at),
  [GgufValueType.UINT16]: (v, at) => v.getUint16(at, true),
  [GgufValueType.INT16]: (v, at) => v.getInt16(at, true),
  [GgufValueType.UINT32]: (v, at) => v.getUint32(at, true),
  [GgufValueType.INT32]: (v, at) => v.getInt32(at, true),
  [GgufValueType.FLOAT32]: (v, at) => v.getFloat32(at, true),
  [GgufValueType.UINT64]: (v, at) => v.getBigUint64(at, true),
  [GgufValueType.INT64]: (v, at) => v.getBigInt64(at, true),
  [GgufValueType.FLOAT64]: (v, at) => v.getFloat64(at, true),
};

function readAlignment(entry: GgufKv | undefined, maxAlignment: number): number {
  if (!entry) return GGUF_DEFAULT_ALIGNMENT;
  if (entry.type !== GgufValueType.UINT32) {
    throw new GgufError('BAD_ALIGNMENT', `general.alignment must be of type uint32 but is ${ggufValueTypeName(entry.type)}`, entry.valueOffset - 4);
  }
  const a = entry.value as number;
  if (a === 0) throw new GgufError('BAD_ALIGNMENT', 'general.alignment is 0', entry.valueOffset);
  if ((a & (a - 1)) !== 0) throw new GgufError('BAD_ALIGNMENT', `general.alignment ${a} is not a power of two`, entry.valueOffset);
  if (a > maxAlignment) throw new GgufError('BAD_ALIGNMENT', `general.alignment ${a} is absurdly large (limit ${maxAlignment})`, entry.valueOffset);
  return a;
}
