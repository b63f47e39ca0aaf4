// GGUF metadata values as JSON: 64-bit integers become numbers when exactly representable and
// decimal strings otherwise; non-finite floats become the strings "NaN", "Infinity", "-Infinity".
import { GgufValueType } from './ggml-types.js';
import { isArray } from './metadata.js';
import type { GgufKv, GgufValue } from './reader-types.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

export function valueTypeName(t: number): string {
  return GgufValueType[t]?.toLowerCase() ?? `type_${t}`;
}

export function valueToJson(v: GgufValue): JsonValue {
  if (typeof v === 'bigint') return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
  if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  return v.items.map(valueToJson);
}

export interface MetadataJson {
  key: string;
  type: string;
  /** Arrays only. */
  elementType?: string;
  length?: number;
  value: JsonValue;
}

export function kvToJson(e: GgufKv): MetadataJson {
  if (isArray(e.value)) {
    return { key: e.key, type: 'array', elementType: valueTypeName(e.value.elementType), length: e.value.items.length, value: valueToJson(e.value) };
  }
  return { key: e.key, type: valueTypeName(e.type), value: valueToJson(e.value) };
}

/** A one-line human rendering: long arrays and long strings are summarised; float32 shown to 7 digits. */
export function valueSummary(v: GgufValue, type?: number, maxItems = 6, maxChars = 100): string {
  if (isArray(v)) {
    const n = v.items.length;
    const shown = v.items.slice(0, maxItems).map((x) => valueSummary(x, v.elementType, 3, 24));
    const tail = n > maxItems ? `, … (${n} ${valueTypeName(v.elementType)})` : '';
    return `[${shown.join(', ')}${tail}]`;
  }
  if (typeof v === 'string') {
    const s = JSON.stringify(v.length > maxChars ? v.slice(0, maxChars) : v);
    return v.length > maxChars ? `${s.slice(0, -1)}…" (${v.length} chars)` : s;
  }
  if (typeof v === 'number' && type === GgufValueType.FLOAT32 && Number.isFinite(v)) return String(Number(v.toPrecision(7)));
  return String(v);
}
