// Typed access to metadata values, strict about types: a known key holding the wrong type is
// a BAD_METADATA error at the value's offset, never silently read as something else.
import { GgufValueType } from './ggml-types.js';
import { GgufError } from './reader-errors.js';
import type { GgufArray, GgufHeader, GgufKv, GgufValue } from './reader-types.js';

const INTEGER_TYPES = new Set<number>([
  GgufValueType.UINT8,
  GgufValueType.INT8,
  GgufValueType.UINT16,
  GgufValueType.INT16,
  GgufValueType.UINT32,
  GgufValueType.INT32,
  GgufValueType.UINT64,
  GgufValueType.INT64,
]);

export function isArray(v: GgufValue): v is GgufArray {
  return typeof v === 'object' && v !== null && 'items' in v;
}

/** A scalar integer (any width) as a safe JS number; undefined when the key is absent. */
export function kvInteger(h: GgufHeader, key: string): number | undefined {
  const e = h.kvByKey.get(key);
  if (!e) return undefined;
  if (!INTEGER_TYPES.has(e.type)) throw wrongType(e, 'an integer');
  return toSafeNumber(e, e.value as number | bigint);
}

/** An integer or a per-layer array of integers (e.g. head_count_kv in some models). */
export function kvIntegerOrArray(h: GgufHeader, key: string): number | number[] | undefined {
  const e = h.kvByKey.get(key);
  if (!e) return undefined;
  if (e.type === GgufValueType.ARRAY) {
    const arr = e.value as GgufArray;
    if (!INTEGER_TYPES.has(arr.elementType)) throw wrongType(e, 'an integer or an array of integers');
    return arr.items.map((x) => toSafeNumber(e, x as number | bigint));
  }
  return kvInteger(h, key);
}

export function kvString(h: GgufHeader, key: string): string | undefined {
  const e = h.kvByKey.get(key);
  if (!e) return undefined;
  if (e.type !== GgufValueType.STRING) throw wrongType(e, 'a string');
  return e.value as string;
}

export function kvArrayLength(h: GgufHeader, key: string): number | undefined {
  const e = h.kvByKey.get(key);
  if (!e) return undefined;
  if (e.type !== GgufValueType.ARRAY) throw wrongType(e, 'an array');
  return (e.value as GgufArray).items.length;
}

function toSafeNumber(e: GgufKv, v: number | bigint): number {
  if (typeof v === 'number') return v;
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new GgufError('BAD_METADATA', `metadata '${e.key}' value ${v} is out of range`, e.valueOffset);
  }
  return Number(v);
}

function wrongType(e: GgufKv, expected: string): GgufError {
  const name = GgufValueType[e.type]?.toLowerCase() ?? String(e.type);
  return new GgufError('BAD_METADATA', `metadata '${e.key}' must be ${expected} but is ${name}`, e.valueOffset);
}
