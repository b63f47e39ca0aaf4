// GGUF v3 serialisation of everything before the tensor data: magic, version, counts, KV pairs,
// tensor infos, padding to the alignment. Tensor data offsets follow gguf.cpp exactly: packed in
// order, each tensor's size padded to the alignment. The caller streams the payload: tensor i's
// bytes go at `tensors[i].start`, the gaps and the tail up to `fileSize` are zeros.
import { GGUF_DEFAULT_ALIGNMENT, GGUF_MAGIC, GgufValueType, ggmlTypeById } from './ggml-types.js';
import { ByteSink, writeKv } from './writer-encode.js';
import type { GgufLayout, TensorPlacement, WriterKv, WriterTensor } from './writer-types.js';

export type { GgufLayout, TensorPlacement, WriterKv, WriterTensor, WriterValue, WriterArray, TypedKv, RawKv } from './writer-types.js';

export const GGUF_WRITE_VERSION = 3;

export function alignUp(n: number, a: number): number {
  const r = n % a;
  return r === 0 ? n : n + (a - r);
}

/** Bytes of a tensor's data; throws when the row is not a whole number of blocks. */
export function tensorNbytes(t: WriterTensor): { nElements: number; nbytes: number } {
  const info = ggmlTypeById(t.typeId);
  if (!info) throw new RangeError(`tensor '${t.name}': unknown ggml type ${t.typeId}`);
  if (t.dims.length < 1 || t.dims.length > 4) throw new RangeError(`tensor '${t.name}': ${t.dims.length} dimensions (1 to 4 allowed)`);
  let n = 1;
  for (const d of t.dims) {
    if (!Number.isSafeInteger(d) || d <= 0) throw new RangeError(`tensor '${t.name}': bad dimension ${d}`);
    n *= d;
  }
  if (!Number.isSafeInteger(n)) throw new RangeError(`tensor '${t.name}': too many elements`);
  if ((t.dims[0] as number) % info.blockSize !== 0) {
    throw new RangeError(`tensor '${t.name}': row of ${t.dims[0]} elements is not a multiple of ${info.name}'s block size ${info.blockSize}`);
  }
  return { nElements: n, nbytes: (n / info.blockSize) * info.typeSize };
}

/** The alignment the KV pairs declare (general.alignment, u32), or the default. */
export function declaredAlignment(kv: readonly WriterKv[]): number {
  const e = kv.find((k) => k.key === 'general.alignment');
  if (!e) return GGUF_DEFAULT_ALIGNMENT;
  if ('raw' in e) {
    const view = new DataView(e.raw.buffer, e.raw.byteOffset, e.raw.byteLength);
    if (e.raw.length !== 8 || view.getUint32(0, true) !== GgufValueType.UINT32) throw new RangeError('general.alignment must be a uint32');
    return checkAlignment(view.getUint32(4, true));
  }
  if (e.type !== GgufValueType.UINT32 || typeof e.value !== 'number') throw new RangeError('general.alignment must be a uint32');
  return checkAlignment(e.value);
}

function checkAlignment(a: number): number {
  if (a === 0 || (a & (a - 1)) !== 0) throw new RangeError(`general.alignment ${a} is not a power of two`);
  return a;
}

export function buildGgufLayout(kv: readonly WriterKv[], tensors: readonly WriterTensor[]): GgufLayout {
  const alignment = declaredAlignment(kv);
  const seenKeys = new Set<string>();
  for (const k of kv) {
    if (k.key.length === 0) throw new RangeError('empty metadata key');
    if (seenKeys.has(k.key)) throw new RangeError(`duplicate metadata key '${k.key}'`);
    seenKeys.add(k.key);
  }

  const sink = new ByteSink(64 * 1024);
  sink.u32(GGUF_MAGIC);
  sink.u32(GGUF_WRITE_VERSION);
  sink.u64(tensors.length);
  sink.u64(kv.length);
  for (const k of kv) writeKv(sink, k);

  const seenNames = new Set<string>();
  let rel = 0;
  const placed: Omit<TensorPlacement, 'start'>[] = [];
  for (const t of tensors) {
    if (seenNames.has(t.name)) throw new RangeError(`duplicate tensor name '${t.name}'`);
    seenNames.add(t.name);
    if (new TextEncoder().encode(t.name).length > 63) throw new RangeError(`tensor name '${t.name}' is longer than 63 bytes`);
    const { nElements, nbytes } = tensorNbytes(t);
    sink.string(t.name);
    sink.u32(t.dims.length);
    for (const d of t.dims) sink.i64(d);
    sink.u32(t.typeId);
    sink.u64(rel);
    placed.push({ name: t.name, dims: [...t.dims], typeId: t.typeId, nElements, nbytes, offset: rel });
    rel += alignUp(nbytes, alignment);
  }

  const dataOffset = tensors.length > 0 ? alignUp(sink.length, alignment) : sink.length;
  sink.zeros(dataOffset - sink.length);
  return {
    header: sink.result(),
    alignment,
    dataOffset,
    tensors: placed.map((t) => ({ ...t, start: dataOffset + t.offset })),
    fileSize: dataOffset + rel,
  };
}
