// A bounds-checked little-endian reader over a prefix of a file. Reading past the end of the
// file is a TRUNCATED error; reading past the end of the prefix (while the file goes on) asks
// the I/O edge for more bytes. Nothing is allocated from a count before it is checked.
import { GgufError, GgufNeedMoreBytes } from './reader-errors.js';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const latin1 = new TextDecoder('latin1');
const utf8 = new TextDecoder('utf-8');

export class Cursor {
  pos = 0;
  /** What is being read, for error messages ("kv #3 'general.name'"). */
  where = 'header';
  /** Budget of metadata array elements left for the whole header (bounds total allocation). */
  valuesLeft = Number.MAX_SAFE_INTEGER;
  private readonly view: DataView;

  constructor(
    readonly bytes: Uint8Array,
    readonly fileSize: number,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Bytes of the file from the current position to its end. */
  remainingInFile(): number {
    return this.fileSize - this.pos;
  }

  ensure(n: number, what: string): void {
    const end = this.pos + n;
    if (end > this.fileSize) {
      throw new GgufError(
        'TRUNCATED',
        `file is truncated: ${this.where}: ${what} needs ${n} bytes but only ${Math.max(0, this.fileSize - this.pos)} remain`,
        this.pos,
      );
    }
    if (end > this.bytes.length) throw new GgufNeedMoreBytes(end);
  }

  u8(what: string): number {
    this.ensure(1, what);
    return this.view.getUint8(this.pos++);
  }

  i8(what: string): number {
    this.ensure(1, what);
    return this.view.getInt8(this.pos++);
  }

  u16(what: string): number {
    this.ensure(2, what);
    const v = this.view.getUint16(this.pos, true);
    this.pos += 2;
    return v;
  }

  i16(what: string): number {
    this.ensure(2, what);
    const v = this.view.getInt16(this.pos, true);
    this.pos += 2;
    return v;
  }

  u32(what: string): number {
    this.ensure(4, what);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  i32(what: string): number {
    this.ensure(4, what);
    const v = this.view.getInt32(this.pos, true);
    this.pos += 4;
    return v;
  }

  f32(what: string): number {
    this.ensure(4, what);
    const v = this.view.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }

  f64(what: string): number {
    this.ensure(8, what);
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  u64(what: string): bigint {
    this.ensure(8, what);
    const v = this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    return v;
  }

  i64(what: string): bigint {
    this.ensure(8, what);
    const v = this.view.getBigInt64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /** A u64 that must fit a JS number; `code` names the error when it does not. */
  u64Safe(what: string, onTooBig: (v: bigint, at: number) => GgufError): number {
    const at = this.pos;
    const v = this.u64(what);
    if (v > MAX_SAFE) throw onTooBig(v, at);
    return Number(v);
  }

  /** A length-prefixed string; the length is checked against `max` and the file before reading. */
  string(what: string, max: number): string {
    const at = this.pos;
    this.ensure(8, `${what} length`);
    const lo = this.view.getUint32(at, true);
    const hi = this.view.getUint32(at + 4, true);
    this.pos += 8;
    if (hi !== 0 || lo > max) {
      const len = (BigInt(hi) << 32n) | BigInt(lo);
      throw new GgufError('STRING_TOO_LONG', `${this.where}: ${what} length ${len} is over the limit of ${max} bytes`, at);
    }
    const n = lo;
    if (n > this.fileSize - this.pos) {
      throw new GgufError(
        'STRING_TOO_LONG',
        `${this.where}: ${what} length ${n} goes beyond the end of the file (${this.fileSize - this.pos} bytes remain)`,
        at,
      );
    }
    this.ensure(n, what);
    const start = this.pos;
    this.pos += n;
    return decode(this.bytes, start, n);
  }

  /** `n` fixed-size values read by `get` (the caller has ensured n * size bytes are present). */
  run<T>(n: number, size: number, get: (view: DataView, at: number) => T): T[] {
    const out = new Array<T>(n);
    let p = this.pos;
    for (let i = 0; i < n; i++, p += size) out[i] = get(this.view, p);
    this.pos = p;
    return out;
  }
}

function decode(bytes: Uint8Array, start: number, n: number): string {
  if (n === 0) return '';
  // Fast path for the common short ASCII strings (tokens, keys, tensor names).
  if (n <= 64) {
    let ascii = true;
    for (let i = start; i < start + n; i++) {
      if ((bytes[i] as number) > 0x7f) {
        ascii = false;
        break;
      }
    }
    if (ascii) return n <= 16 ? String.fromCharCode(...bytes.subarray(start, start + n)) : latin1.decode(bytes.subarray(start, start + n));
  }
  return utf8.decode(bytes.subarray(start, start + n));
}
