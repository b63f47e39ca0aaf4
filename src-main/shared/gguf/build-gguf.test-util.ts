// A tiny, deliberately permissive GGUF writer for tests: it writes whatever it is told
// (invalid types, wrong counts, misaligned offsets), so each malformed-file class can be
// handcrafted in memory. Independent of the project's real writer on purpose.
import { GgufValueType, ggmlTypeById } from './ggml-types.js';

export interface ArrayValue {
  elementType: number;
  items: unknown[];
  /** Written instead of items.length (to forge an array count). */
  count?: bigint;
}

export interface KvSpec {
  key: string;
  type: number;
  value?: unknown;
  /** Written after the type tag instead of an encoded value. */
  raw?: Uint8Array;
}

export interface TensorSpec {
  name: string;
  dims: (number | bigint)[];
  type: number;
  /** Forged n_dims (default dims.length). */
  nDims?: number;
  /** Forged offset relative to the data section (default: packed with alignment). */
  offset?: number | bigint;
}

export interface GgufSpec {
  magic?: string;
  version?: number;
  tensorCount?: bigint;
  kvCount?: bigint;
  kv?: KvSpec[];
  tensors?: TensorSpec[];
  /** Alignment used to place data and compute default offsets (write general.alignment yourself). */
  alignment?: number;
  /** Bytes of payload written after the data section starts (default: exactly what the tensors need). */
  dataBytes?: number;
}

export class ByteWriter {
  private buf = new Uint8Array(1024);
  private view = new DataView(this.buf.buffer);
  length = 0;

  private grow(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.length + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  u8(v: number): this {
    this.grow(1);
    this.view.setUint8(this.length, v);
    this.length += 1;
    return this;
  }
  i8(v: number): this {
    this.grow(1);
    this.view.setInt8(this.length, v);
    this.length += 1;
    return this;
  }
  u16(v: number): this {
    this.grow(2);
    this.view.setUint16(this.length, v, true);
    this.length += 2;
    return this;
  }
  i16(v: number): this {
    this.grow(2);
    this.view.setInt16(this.length, v, true);
    this.length += 2;
    return this;
  }
  u32(v: number): this {
    this.grow(4);
    this.view.setUint32(this.length, v >>> 0, true);
    this.length += 4;
    return this;
  }
  i32(v: number): this {
    this.grow(4);
    this.view.setInt32(this.length, v, true);
    this.length += 4;
    return this;
  }
  f32(v: number): this {
    this.grow(4);
    this.view.setFloat32(this.length, v, true);
    this.length += 4;
    return this;
  }
  f64(v: number): this {
    this.grow(8);
    this.view.setFloat64(this.length, v, true);
    this.length += 8;
    return this;
  }
  u64(v: number | bigint): this {
    this.grow(8);
    this.view.setBigUint64(this.length, BigInt.asUintN(64, BigInt(v)), true);
    this.length += 8;
    return this;
  }
  bytes(b: Uint8Array): this {
    this.grow(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
    return this;
  }
  str(s: string): this {
    const b = new TextEncoder().encode(s);
    return this.u64(b.length).bytes(b);
  }
  zeros(n: number): this {
    this.grow(n);
    this.buf.fill(0, this.length, this.length + n);
    this.length += n;
    return this;
  }
  result(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

export function writeValue(w: ByteWriter, type: number, value: unknown): void {
  switch (type) {
    case GgufValueType.UINT8: w.u8(value as number); break;
    case GgufValueType.INT8: w.i8(value as number); break;
    case GgufValueType.UINT16: w.u16(value as number); break;
    case GgufValueType.INT16: w.i16(value as number); break;
    case GgufValueType.UINT32: w.u32(value as number); break;
    case GgufValueType.INT32: w.i32(value as number); break;
    case GgufValueType.FLOAT32: w.f32(value as number); break;
    case GgufValueType.BOOL: w.u8(value ? 1 : 0); break;
    case GgufValueType.STRING: w.str(value as string); break;
    case GgufValueType.UINT64:
    case GgufValueType.INT64: w.u64(value as number | bigint); break;
    case GgufValueType.FLOAT64: w.f64(value as number); break;
    case GgufValueType.ARRAY: {
      const a = value as ArrayValue;
      w.u32(a.elementType).u64(a.count ?? BigInt(a.items.length));
      for (const it of a.items) writeValue(w, a.elementType, it);
      break;
    }
    default:
      throw new Error(`test writer: cannot encode value type ${type}; pass raw bytes`);
  }
}

export function tensorBytes(t: TensorSpec): number {
  const info = ggmlTypeById(t.type);
  if (!info) return 0;
  const n = t.dims.reduce<number>((a, d) => a * Number(d), 1);
  return (n / info.blockSize) * info.typeSize;
}

const pad = (n: number, a: number): number => (n % a === 0 ? n : n + a - (n % a));

/** Encodes a GGUF file; returns the bytes and where things were written. */
export function buildGguf(spec: GgufSpec): { bytes: Uint8Array; offsets: { tensorInfo: number[]; kv: number[]; dataOffset: number } } {
  const kv = spec.kv ?? [];
  const tensors = spec.tensors ?? [];
  const align = spec.alignment ?? 32;
  const w = new ByteWriter();
  w.bytes(new TextEncoder().encode(spec.magic ?? 'GGUF'));
  w.u32(spec.version ?? 3);
  w.u64(spec.tensorCount ?? BigInt(tensors.length));
  w.u64(spec.kvCount ?? BigInt(kv.length));
  const kvOffsets: number[] = [];
  for (const e of kv) {
    kvOffsets.push(w.length);
    w.str(e.key).u32(e.type);
    if (e.raw) w.bytes(e.raw);
    else writeValue(w, e.type, e.value);
  }
  const tiOffsets: number[] = [];
  let next = 0;
  let dataEnd = 0;
  for (const t of tensors) {
    tiOffsets.push(w.length);
    w.str(t.name).u32(t.nDims ?? t.dims.length);
    for (const d of t.dims) w.u64(d);
    w.u32(t.type);
    const off = t.offset ?? next;
    w.u64(off);
    const size = tensorBytes(t);
    next = pad(Number(off) + size, align);
    dataEnd = Math.max(dataEnd, Number(off) + size);
  }
  const dataOffset = tensors.length > 0 ? pad(w.length, align) : w.length;
  w.zeros(dataOffset - w.length);
  w.zeros(spec.dataBytes ?? dataEnd);
  return { bytes: w.result(), offsets: { tensorInfo: tiOffsets, kv: kvOffsets, dataOffset } };
}
