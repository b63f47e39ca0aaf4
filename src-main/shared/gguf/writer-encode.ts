// Encoding of GGUF metadata values (little-endian, strings as u64 length + UTF-8 bytes), in two
// passes: size first, then bytes into one preallocated buffer.
import { GgufValueType } from './ggml-types.js';
import type { WriterArray, WriterKv, WriterValue } from './writer-types.js';

const utf8 = new TextEncoder();

/**
 * Grows by doubling; every write is bounds-safe. Each write reserves before it touches the
 * view: `this.view.set…(this.reserve(n))` would evaluate the old view before growing it.
 */
export class ByteSink {
  private buf: Uint8Array;
  private view: DataView;
  length = 0;

  constructor(initial = 4096) {
    this.buf = new Uint8Array(initial);
    this.view = new DataView(this.buf.buffer);
  }

  private reserve(n: number): number {
    const at = this.length;
    if (at + n > this.buf.length) {
      let cap = this.buf.length * 2;
      while (cap < at + n) cap *= 2;
      const next = new Uint8Array(cap);
      next.set(this.buf.subarray(0, at));
      this.buf = next;
      this.view = new DataView(next.buffer);
    }
    this.length += n;
    return at;
  }

  u8(v: number): void {
    const at = this.reserve(1);
    this.view.setUint8(at, v);
  }
  i8(v: number): void {
    const at = this.reserve(1);
    this.view.setInt8(at, v);
  }
  u16(v: number): void {
    const at = this.reserve(2);
    this.view.setUint16(at, v, true);
  }
  i16(v: number): void {
    const at = this.reserve(2);
    this.view.setInt16(at, v, true);
  }
  u32(v: number): void {
    const at = this.reserve(4);
    this.view.setUint32(at, v, true);
  }
  i32(v: number): void {
    const at = this.reserve(4);
    this.view.setInt32(at, v, true);
  }
  f32(v: number): void {
    const at = this.reserve(4);
    this.view.setFloat32(at, v, true);
  }
  f64(v: number): void {
    const at = this.reserve(8);
    this.view.setFloat64(at, v, true);
  }
  u64(v: number | bigint): void {
    const at = this.reserve(8);
    this.view.setBigUint64(at, BigInt(v), true);
  }
  i64(v: number | bigint): void {
    const at = this.reserve(8);
    this.view.setBigInt64(at, BigInt(v), true);
  }
  bytes(b: Uint8Array): void {
    const at = this.reserve(b.length);
    this.buf.set(b, at);
  }
  string(s: string): void {
    const b = utf8.encode(s);
    this.u64(b.length);
    this.bytes(b);
  }
  zeros(n: number): void {
    const at = this.reserve(n);
    this.buf.fill(0, at, at + n);
  }
  result(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

function expectNumber(v: WriterValue, key: string, type: GgufValueType): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint' && (type === GgufValueType.UINT64 || type === GgufValueType.INT64)) return Number(v);
  throw new TypeError(`metadata '${key}': ${GgufValueType[type]} needs a number, got ${typeof v}`);
}

function checkInt(n: number, lo: number, hi: number, key: string, type: GgufValueType): number {
  if (!Number.isInteger(n) || n < lo || n > hi) throw new RangeError(`metadata '${key}': ${n} does not fit ${GgufValueType[type]}`);
  return n;
}

export function writeValue(sink: ByteSink, type: GgufValueType, v: WriterValue, key: string): void {
  switch (type) {
    case GgufValueType.UINT8:
      return sink.u8(checkInt(expectNumber(v, key, type), 0, 0xff, key, type));
    case GgufValueType.INT8:
      return sink.i8(checkInt(expectNumber(v, key, type), -0x80, 0x7f, key, type));
    case GgufValueType.UINT16:
      return sink.u16(checkInt(expectNumber(v, key, type), 0, 0xffff, key, type));
    case GgufValueType.INT16:
      return sink.i16(checkInt(expectNumber(v, key, type), -0x8000, 0x7fff, key, type));
    case GgufValueType.UINT32:
      return sink.u32(checkInt(expectNumber(v, key, type), 0, 0xffffffff, key, type));
    case GgufValueType.INT32:
      return sink.i32(checkInt(expectNumber(v, key, type), -0x80000000, 0x7fffffff, key, type));
    case GgufValueType.FLOAT32:
      return sink.f32(expectNumber(v, key, type));
    case GgufValueType.FLOAT64:
      return sink.f64(expectNumber(v, key, type));
    case GgufValueType.UINT64: {
      const b = typeof v === 'bigint' ? v : BigInt(checkInt(expectNumber(v, key, type), 0, Number.MAX_SAFE_INTEGER, key, type));
      if (b < 0n || b > 0xffffffffffffffffn) throw new RangeError(`metadata '${key}': ${b} does not fit UINT64`);
      return sink.u64(b);
    }
    case GgufValueType.INT64: {
      const b = typeof v === 'bigint' ? v : BigInt(checkInt(expectNumber(v, key, type), Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, key, type));
      if (b < -(2n ** 63n) || b >= 2n ** 63n) throw new RangeError(`metadata '${key}': ${b} does not fit INT64`);
      return sink.i64(b);
    }
    case GgufValueType.BOOL:
      if (typeof v !== 'boolean') throw new TypeError(`metadata '${key}': BOOL needs a boolean, got ${typeof v}`);
      return sink.u8(v ? 1 : 0);
    case GgufValueType.STRING:
      if (typeof v !== 'string') throw new TypeError(`metadata '${key}': STRING needs a string, got ${typeof v}`);
      return sink.string(v);
    case GgufValueType.ARRAY: {
      if (typeof v !== 'object' || v === null || !('items' in v)) throw new TypeError(`metadata '${key}': ARRAY needs { elementType, items }`);
      const arr = v as WriterArray;
      sink.u32(arr.elementType);
      sink.u64(arr.items.length);
      for (let i = 0; i < arr.items.length; i++) writeValue(sink, arr.elementType, arr.items[i] as WriterValue, key);
      return;
    }
    default:
      throw new TypeError(`metadata '${key}': unknown value type ${type as number}`);
  }
}

export function writeKv(sink: ByteSink, kv: WriterKv): void {
  sink.string(kv.key);
  if ('raw' in kv) {
    if (kv.raw.length < 5) throw new RangeError(`metadata '${kv.key}': raw value is too short`);
    sink.bytes(kv.raw);
    return;
  }
  sink.u32(kv.type);
  writeValue(sink, kv.type, kv.value, kv.key);
}
