// Mutations of a real model that keep the GGUF structure intact — every length, count and
// offset still where the reader expects it — and change only values: hyperparameters, token
// tables and ids, tensor shapes, types and data offsets, the architecture's name. The header
// stays parseable, so many of these pass our hardened reader and reach llama.cpp's loader:
// the load fuzz feeds those to a real worker. Pure.
import { GgufValueType as V, ggmlTypeById } from './ggml-types.js';
import type { GgufHeader, GgufKv } from './reader-types.js';

export interface LoadMutation {
  readonly bytes: Uint8Array;
  /** What was changed, for the failure message of a case ('' when no mutator applied). */
  readonly what: string;
}

const U32 = [0, 1, 2, 3, 7, 8, 31, 64, 255, 4096, 65535, 0x7fffffff, 0xffffffff];
const F32 = [0, -1, 1e-30, 1e30, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0.5, 1e6];
const SCALAR_BYTES: Partial<Record<V, number>> = { [V.UINT8]: 1, [V.INT8]: 1, [V.UINT16]: 2, [V.INT16]: 2, [V.UINT32]: 4, [V.INT32]: 4, [V.FLOAT32]: 4, [V.BOOL]: 1, [V.UINT64]: 8, [V.INT64]: 8, [V.FLOAT64]: 8 };

type Rnd = () => number;
const pick = <T>(rnd: Rnd, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;

function writeScalar(dv: DataView, at: number, type: V, rnd: Rnd): string {
  switch (type) {
    case V.UINT8:
    case V.INT8:
    case V.BOOL: {
      const v = Math.floor(rnd() * 256);
      dv.setUint8(at, v);
      return String(v);
    }
    case V.UINT16:
    case V.INT16: {
      const v = pick(rnd, [0, 1, 0xffff, 0x7fff]);
      dv.setUint16(at, v, true);
      return String(v);
    }
    case V.UINT32:
    case V.INT32: {
      const v = pick(rnd, U32);
      dv.setUint32(at, v, true);
      return String(v);
    }
    case V.FLOAT32: {
      const v = pick(rnd, F32);
      dv.setFloat32(at, v, true);
      return String(v);
    }
    case V.UINT64:
    case V.INT64: {
      const v = BigInt(pick(rnd, U32)) * pick(rnd, [1n, 1n << 20n, 1n << 32n]);
      dv.setBigUint64(at, v, true);
      return String(v);
    }
    case V.FLOAT64: {
      const v = pick(rnd, F32);
      dv.setFloat64(at, v, true);
      return String(v);
    }
    default:
      return '(unchanged)';
  }
}

/** Where element `i` of a fixed-width array starts (after the element type and the count). */
function arrayElement(kv: GgufKv, i: number, width: number): number {
  return kv.valueOffset + 4 + 8 + i * width;
}

/** Byte offset of a tensor info's fields: name length, name, n_dims, dims…, type, offset. */
function tensorFields(h: GgufHeader, t: number): { dims: number; nDims: number; type: number; offset: number } {
  const info = h.tensors[t]!;
  const nameLen = new TextEncoder().encode(info.name).length;
  const nDims = info.infoOffset + 8 + nameLen;
  const dims = nDims + 4;
  const type = dims + 8 * info.dims.length;
  return { dims, nDims, type, offset: type + 4 };
}

const MUTATORS: ((b: Uint8Array, dv: DataView, h: GgufHeader, rnd: Rnd) => string | null)[] = [
  // A hyperparameter or any other scalar metadata value.
  (_b, dv, h, rnd) => {
    const kv = pick(rnd, h.kv.filter((k) => SCALAR_BYTES[k.type] !== undefined && k.key !== 'general.alignment'));
    if (!kv) return null;
    return `${kv.key} = ${writeScalar(dv, kv.valueOffset, kv.type, rnd)}`;
  },
  // An element of a numeric array (token scores and types, per-layer values).
  (_b, dv, h, rnd) => {
    const kv = pick(rnd, h.kv.filter((k) => k.type === V.ARRAY && typeof k.value === 'object' && SCALAR_BYTES[(k.value as { elementType: V }).elementType] !== undefined));
    if (!kv) return null;
    const arr = kv.value as { elementType: V; items: unknown[] };
    if (arr.items.length === 0) return null;
    const i = Math.floor(rnd() * arr.items.length);
    const width = SCALAR_BYTES[arr.elementType] as number;
    return `${kv.key}[${i}] = ${writeScalar(dv, arrayElement(kv, i, width), arr.elementType, rnd)}`;
  },
  // Bytes inside a string value, its length kept: token texts, the template, the architecture.
  (b, _dv, h, rnd) => {
    const kv = pick(rnd, h.kv.filter((k) => k.type === V.STRING && typeof k.value === 'string' && k.value.length > 0));
    if (!kv) return null;
    const len = Number(new DataView(b.buffer, b.byteOffset).getBigUint64(kv.valueOffset, true));
    if (len === 0) return null;
    const at = kv.valueOffset + 8 + Math.floor(rnd() * len);
    b[at] = pick(rnd, [0, 0x20, 0x41, 0x80, 0xc3, 0xff]);
    return `${kv.key}: a byte of its text`;
  },
  // The architecture named by another one of the same length (its keys then do not match).
  (b, _dv, h, rnd) => {
    const kv = h.kvByKey.get('general.architecture');
    if (!kv || typeof kv.value !== 'string') return null;
    const same = ['llama', 'qwen2', 'gpt2', 'phi2', 'bert', 'mamba', 'gemma', 'olmo'].filter((a) => a.length === (kv.value as string).length && a !== kv.value);
    if (same.length === 0) return null;
    const to = pick(rnd, same);
    b.set(new TextEncoder().encode(to), kv.valueOffset + 8);
    return `general.architecture = ${to}`;
  },
  // A dimension of a tensor (its byte size changes: the reader keeps only what stays in bounds).
  (_b, dv, h, rnd) => {
    const t = Math.floor(rnd() * h.tensors.length);
    const f = tensorFields(h, t);
    const d = Math.floor(rnd() * h.tensors[t]!.dims.length);
    const old = h.tensors[t]!.dims[d]!;
    const v = pick(rnd, [1, 2, Math.max(1, old >> 1), old * 2, old + 1, 32]);
    dv.setBigUint64(f.dims + 8 * d, BigInt(v), true);
    return `${h.tensors[t]!.name} ne[${d}] ${old} → ${v}`;
  },
  // Two dimensions of a matrix swapped: same bytes, the wrong shape for the architecture.
  (_b, dv, h, rnd) => {
    const mats = h.tensors.map((x, i) => [x, i] as const).filter(([x]) => x.dims.length >= 2 && x.dims[0] !== x.dims[1]);
    if (mats.length === 0) return null;
    const [x, i] = pick(rnd, mats);
    const f = tensorFields(h, i);
    dv.setBigUint64(f.dims, BigInt(x.dims[1]!), true);
    dv.setBigUint64(f.dims + 8, BigInt(x.dims[0]!), true);
    return `${x.name} dims swapped`;
  },
  // A tensor's type: another ggml type (the reader keeps those whose size still fits).
  (_b, dv, h, rnd) => {
    const t = Math.floor(rnd() * h.tensors.length);
    const to = pick(rnd, [0, 1, 2, 3, 6, 7, 8, 10, 12, 14, 24, 30]);
    if (!ggmlTypeById(to)) return null;
    dv.setUint32(tensorFields(h, t).type, to, true);
    return `${h.tensors[t]!.name} type ${h.tensors[t]!.typeName} → ${ggmlTypeById(to)!.name}`;
  },
  // A tensor's data offset moved to another aligned place inside the data section.
  (_b, dv, h, rnd) => {
    const t = Math.floor(rnd() * h.tensors.length);
    const span = h.fileSize - h.dataOffset - h.tensors[t]!.nbytes;
    if (span <= 0) return null;
    const to = Math.floor((rnd() * span) / h.alignment) * h.alignment;
    dv.setBigUint64(tensorFields(h, t).offset, BigInt(to), true);
    return `${h.tensors[t]!.name} offset ${h.tensors[t]!.offset} → ${to}`;
  },
  // Two tensors of the same size trade data offsets (each reads the other's weights).
  (_b, dv, h, rnd) => {
    const t = Math.floor(rnd() * h.tensors.length);
    const u = h.tensors.findIndex((x, i) => i !== t && x.nbytes === h.tensors[t]!.nbytes);
    if (u < 0) return null;
    dv.setBigUint64(tensorFields(h, t).offset, BigInt(h.tensors[u]!.offset), true);
    dv.setBigUint64(tensorFields(h, u).offset, BigInt(h.tensors[t]!.offset), true);
    return `${h.tensors[t]!.name} and ${h.tensors[u]!.name} trade offsets`;
  },
];

/** One to three value mutations of `base` (whose parsed header is `h`). */
export function mutateForLoad(base: Uint8Array, h: GgufHeader, rnd: Rnd): LoadMutation {
  const b = base.slice();
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const what: string[] = [];
  const rounds = 1 + Math.floor(rnd() * 3);
  for (let r = 0; r < rounds; r++) {
    const w = pick(rnd, MUTATORS)(b, dv, h, rnd);
    if (w) what.push(w);
  }
  return { bytes: b, what: what.join('; ') };
}
