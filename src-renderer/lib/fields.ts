// Defensive readers for JSON that arrives as `unknown` (API results, saved reports). A field is
// looked up by its camelCase name and, failing that, its snake_case twin, so the renderer reads
// both the API's camelCase objects and the report's snake_case document.

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The first of `names` set (not null/undefined) on `o`, each tried as written, then in snake_case. */
export function field(o: unknown, ...names: string[]): unknown {
  if (!isObj(o)) return undefined;
  let sawNull = false;
  for (const n of names) {
    for (const k of [n, snake(n)]) {
      const v = o[k];
      if (v !== undefined && v !== null) return v;
      if (v === null) sawNull = true;
    }
  }
  return sawNull ? null : undefined;
}

export function num(o: unknown, ...names: string[]): number | null {
  const v = field(o, ...names);
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

export function str(o: unknown, ...names: string[]): string | null {
  const v = field(o, ...names);
  return typeof v === 'string' ? v : null;
}

export function bool(o: unknown, ...names: string[]): boolean | null {
  const v = field(o, ...names);
  return typeof v === 'boolean' ? v : null;
}

export function arr(o: unknown, ...names: string[]): unknown[] {
  const v = field(o, ...names);
  return Array.isArray(v) ? v : [];
}

export function obj(o: unknown, ...names: string[]): Obj | null {
  const v = field(o, ...names);
  return isObj(v) ? v : null;
}

/** A number, or a `{ value/bytes }` object holding one (ledger entries carry provenance). */
export function numLike(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (isObj(v)) return num(v, 'value', 'bytes');
  return null;
}
