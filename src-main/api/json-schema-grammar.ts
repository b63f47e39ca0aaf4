// JSON Schema → GBNF, the grammar llama.cpp's sampler constrains output with. llama.cpp's own
// converters are not reachable from here: its C++ one lives in the `common` library, which our
// addon does not link (and needs most of it), and the pinned source bundle ships neither the
// JavaScript nor the Python one. So this is a small converter of our own for the subset
// structured-output clients send (OpenAI's strict schemas among them), following llama.cpp's
// conventions (grammars/README.md of the pinned tag): the same primitive rules, bounded
// whitespace, properties in schema order with the required ones first, no additional
// properties unless the schema allows them. Unlike llama.cpp, a keyword it cannot honour is an
// error naming it, never skipped, so a client never gets less than its schema asks without
// knowing. Every rule it writes is bounded except where the schema is unbounded itself
// (strings without maxLength, arrays without maxItems, recursive $refs). Pure.

export class SchemaGrammarError extends Error {
  constructor(
    message: string,
    /** Where in the schema, as a JSON pointer ('' for the root). */
    readonly at: string,
  ) {
    super(at ? `${message} (at ${at})` : message);
    this.name = 'SchemaGrammarError';
  }
}

type Schema = Record<string, unknown>;

/** Repetition bounds GBNF expands into rules: past this a grammar grows past reason. */
export const MAX_REPEAT = 1000;
/** Integer ranges written out as their values. */
const MAX_INT_RANGE = 1000;
const MAX_RULES = 5000;

const ANNOTATIONS = new Set(['title', 'description', '$schema', '$id', '$comment', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$defs', 'definitions', 'strict']);
const SUPPORTED = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'items', 'prefixItems', 'minItems', 'maxItems', 'enum', 'const', 'anyOf', 'oneOf', '$ref',
  'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum',
]);

/** llama.cpp's primitive rules (grammars/README.md and json.gbnf of the pinned tag). */
const PRIMITIVES: Record<string, { body: string; deps: string[] }> = {
  space: { body: String.raw`| " " | "\n"{1,2} [ \t]{0,20}`, deps: [] },
  char: { body: String.raw`[^"\\\x7F\x00-\x1F] | [\\] (["\\bfnrt] | "u" [0-9a-fA-F]{4})`, deps: [] },
  'integral-part': { body: String.raw`[0] | [1-9] [0-9]{0,15}`, deps: [] },
  'decimal-part': { body: String.raw`[0-9]{1,16}`, deps: [] },
  boolean: { body: String.raw`("true" | "false") space`, deps: ['space'] },
  null: { body: String.raw`"null" space`, deps: ['space'] },
  integer: { body: String.raw`("-"? integral-part) space`, deps: ['integral-part', 'space'] },
  number: { body: String.raw`("-"? integral-part) ("." decimal-part)? ([eE] [-+]? integral-part)? space`, deps: ['integral-part', 'decimal-part', 'space'] },
  string: { body: String.raw`"\"" char* "\"" space`, deps: ['char', 'space'] },
  value: { body: 'object | array | string | number | boolean | null', deps: ['object', 'array', 'string', 'number', 'boolean', 'null'] },
  object: { body: String.raw`"{" space ( string ":" space value ("," space string ":" space value)* )? "}" space`, deps: ['string', 'value', 'space'] },
  array: { body: String.raw`"[" space ( value ("," space value)* )? "]" space`, deps: ['value', 'space'] },
};

/** A GBNF string literal of `s`. */
export function gbnfLiteral(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** `item` repeated min…max times, `sep` between (max null: unbounded). */
function repetition(item: string, min: number, max: number | null, sep = ''): string {
  if (max === 0) return '';
  const joined = sep ? `(${sep} ${item})` : item;
  const rest = (lo: number, hi: number | null): string => {
    if (hi === 0) return '';
    if (lo === 0 && hi === 1) return `${joined}?`;
    if (hi === null) return lo === 0 ? `${joined}*` : lo === 1 ? `${joined}+` : `${joined}{${lo},}`;
    return lo === hi ? `${joined}{${lo}}` : `${joined}{${lo},${hi}}`;
  };
  if (!sep) return rest(min, max);
  const tail = rest(Math.max(0, min - 1), max === null ? null : max - 1);
  const seq = tail ? `${item} ${tail}` : item;
  return min === 0 ? `(${seq})?` : seq;
}

const isObject = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

class Converter {
  private readonly rules = new Map<string, string>();
  private readonly refs = new Map<string, string>();

  constructor(private readonly root: unknown) {}

  grammar(): string {
    return [...this.rules].map(([name, body]) => `${name} ::= ${body}`).join('\n') + '\n';
  }

  private primitive(name: string): string {
    const p = PRIMITIVES[name];
    if (!p) throw new Error(`no primitive ${name}`);
    if (!this.rules.has(name)) {
      this.rules.set(name, p.body);
      for (const d of p.deps) this.primitive(d);
    }
    return name;
  }

  /** Adds a rule under `name` (or a numbered variant when taken by another body). */
  private add(name: string, body: string): string {
    const base = name.replace(/[^a-zA-Z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'r';
    let n = base;
    for (let i = 1; this.rules.has(n) && this.rules.get(n) !== body; i++) n = `${base}${i}`;
    if (this.rules.size >= MAX_RULES) throw new SchemaGrammarError(`the schema needs more than ${MAX_RULES} grammar rules`, '');
    this.rules.set(n, body);
    return n;
  }

  private count(s: Schema, key: string, at: string): number | null {
    const v = s[key];
    if (v === undefined) return null;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new SchemaGrammarError(`'${key}' must be a non-negative integer`, at);
    if (v > MAX_REPEAT) throw new SchemaGrammarError(`'${key}' above ${MAX_REPEAT} is not supported`, at);
    return v;
  }

  /** The name of a rule matching `schema`, followed by optional whitespace. */
  visit(schema: unknown, name: string, at: string): string {
    if (schema === true) return this.primitive('value');
    if (schema === false) throw new SchemaGrammarError('a schema of false matches nothing', at);
    if (!isObject(schema)) throw new SchemaGrammarError('a schema must be an object or a boolean', at);
    for (const k of Object.keys(schema)) {
      if (!SUPPORTED.has(k) && !ANNOTATIONS.has(k)) throw new SchemaGrammarError(`the schema keyword '${k.slice(0, 60)}' is not supported`, at);
    }
    const s = schema;
    // A keyword that picks the value by itself: the constraints beside it would be dropped, so
    // they are refused rather than ignored (`type` beside an enum or a const adds nothing).
    const sole = ['$ref', 'anyOf', 'oneOf', 'const', 'enum'].find((k) => s[k] !== undefined);
    if (sole) {
      const also = Object.keys(s).filter((k) => k !== sole && SUPPORTED.has(k) && !(k === 'type' && (sole === 'const' || sole === 'enum')));
      if (also.length > 0) throw new SchemaGrammarError(`'${sole}' together with '${also[0]}' is not supported`, at);
    }
    if (s.$ref !== undefined) return this.ref(s.$ref, at);
    if (s.const !== undefined) {
      this.primitive('space');
      return this.add(name, `${gbnfLiteral(JSON.stringify(s.const))} space`);
    }
    if (s.enum !== undefined) return this.enumRule(s.enum, name, at);
    const alts = s.anyOf ?? s.oneOf;
    if (alts !== undefined) {
      if (!Array.isArray(alts) || alts.length === 0) throw new SchemaGrammarError("'anyOf' / 'oneOf' must be a non-empty array", at);
      const key = s.anyOf !== undefined ? 'anyOf' : 'oneOf';
      return this.add(name, alts.map((a, i) => this.visit(a, `${name}-${i}`, `${at}/${key}/${i}`)).join(' | '));
    }
    const type = s.type;
    if (Array.isArray(type)) {
      if (type.length === 0) throw new SchemaGrammarError("'type' must not be an empty array", at);
      return this.add(name, type.map((t, i) => this.visit({ ...s, type: t }, `${name}-${String(t)}`, `${at}/type/${i}`)).join(' | '));
    }
    if (type === undefined) {
      if (s.properties !== undefined || s.additionalProperties !== undefined || s.required !== undefined) return this.objectRule(s, name, at);
      if (s.items !== undefined || s.prefixItems !== undefined) return this.arrayRule(s, name, at);
      return this.primitive('value');
    }
    switch (type) {
      case 'object':
        return this.objectRule(s, name, at);
      case 'array':
        return this.arrayRule(s, name, at);
      case 'string':
        return this.stringRule(s, name, at);
      case 'integer':
        return this.integerRule(s, name, at);
      case 'number':
        for (const k of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']) {
          if (s[k] !== undefined) throw new SchemaGrammarError(`'${k}' is supported for integers only`, at);
        }
        return this.primitive('number');
      case 'boolean':
        return this.primitive('boolean');
      case 'null':
        return this.primitive('null');
      default:
        throw new SchemaGrammarError(`unknown type ${JSON.stringify(type)}`, at);
    }
  }

  private ref(ref: unknown, at: string): string {
    if (typeof ref !== 'string') throw new SchemaGrammarError("'$ref' must be a string", at);
    const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
    if (!m) throw new SchemaGrammarError(`only local references to #/$defs/NAME or #/definitions/NAME are supported, not ${JSON.stringify(ref.slice(0, 100))}`, at);
    const known = this.refs.get(ref);
    if (known) return known;
    const defs = isObject(this.root) ? this.root[m[1] as string] : undefined;
    const target = isObject(defs) ? defs[m[2] as string] : undefined;
    if (target === undefined) throw new SchemaGrammarError(`'$ref' ${JSON.stringify(ref)} names no definition`, at);
    // Named before it is visited, so a recursive definition refers to itself.
    const name = this.add(`ref-${m[2]}`, '""');
    this.refs.set(ref, name);
    const inner = this.visit(target, `${name}-def`, `/${m[1]}/${m[2]}`);
    this.rules.set(name, inner);
    return name;
  }

  private enumRule(values: unknown, name: string, at: string): string {
    if (!Array.isArray(values) || values.length === 0) throw new SchemaGrammarError("'enum' must be a non-empty array", at);
    this.primitive('space');
    return this.add(name, `(${values.map((v) => gbnfLiteral(JSON.stringify(v))).join(' | ')}) space`);
  }

  private stringRule(s: Schema, name: string, at: string): string {
    const min = this.count(s, 'minLength', at) ?? 0;
    const max = this.count(s, 'maxLength', at);
    if (max !== null && max < min) throw new SchemaGrammarError("'maxLength' is less than 'minLength'", at);
    if (min === 0 && max === null) return this.primitive('string');
    this.primitive('char');
    this.primitive('space');
    const chars = repetition('char', min, max);
    return this.add(name, chars ? `"\\"" ${chars} "\\"" space` : `"\\"" "\\"" space`);
  }

  private integerRule(s: Schema, name: string, at: string): string {
    const bound = (k: string): number | null => {
      const v = s[k];
      if (v === undefined) return null;
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new SchemaGrammarError(`'${k}' must be a number`, at);
      return v;
    };
    const lows = [bound('minimum'), bound('exclusiveMinimum')];
    const highs = [bound('maximum'), bound('exclusiveMaximum')];
    const lo = Math.max(lows[0] === null ? -Infinity : Math.ceil(lows[0]), lows[1] === null ? -Infinity : Math.floor(lows[1]) + 1);
    const hi = Math.min(highs[0] === null ? Infinity : Math.floor(highs[0]), highs[1] === null ? Infinity : Math.ceil(highs[1]) - 1);
    if (lo === -Infinity && hi === Infinity) return this.primitive('integer');
    if (lo > hi) throw new SchemaGrammarError('the integer range is empty', at);
    this.primitive('space');
    if (Number.isFinite(lo) && Number.isFinite(hi) && hi - lo < MAX_INT_RANGE) {
      const values = Array.from({ length: hi - lo + 1 }, (_, i) => gbnfLiteral(String(lo + i)));
      return this.add(name, `(${values.join(' | ')}) space`);
    }
    // Open ranges from 0 or 1 are exact without writing values out.
    if (hi === Infinity && lo === 0) {
      this.primitive('integral-part');
      return this.add(name, 'integral-part space');
    }
    if (hi === Infinity && lo === 1) return this.add(name, '[1-9] [0-9]{0,15} space');
    throw new SchemaGrammarError(`integer ranges are supported when bounded on both sides (at most ${MAX_INT_RANGE} values) or from 0 or 1 upwards`, at);
  }

  private arrayRule(s: Schema, name: string, at: string): string {
    this.primitive('space');
    const min = this.count(s, 'minItems', at) ?? 0;
    const max = this.count(s, 'maxItems', at);
    if (max !== null && max < min) throw new SchemaGrammarError("'maxItems' is less than 'minItems'", at);
    // `items` as an array is the tuple form of drafts before 2020-12 (llama.cpp reads it so too).
    const tuple = Array.isArray(s.items) ? 'items' : s.prefixItems !== undefined ? 'prefixItems' : null;
    if (tuple !== null) {
      const pre = s[tuple];
      if (!Array.isArray(pre) || pre.length === 0) throw new SchemaGrammarError(`'${tuple}' must be a non-empty array`, at);
      if (tuple === 'prefixItems' && s.items !== undefined && s.items !== false) throw new SchemaGrammarError("'prefixItems' with 'items' other than false is not supported", at);
      const parts = pre.map((p, i) => this.visit(p, `${name}-${i}`, `${at}/${tuple}/${i}`));
      return this.add(name, `"[" space ${parts.join(' "," space ')} "]" space`);
    }
    const item = s.items === undefined ? this.primitive('value') : this.visit(s.items, `${name}-item`, `${at}/items`);
    const inner = repetition(item, min, max, '"," space');
    return this.add(name, `"[" space ${inner ? `${inner} ` : ''}"]" space`);
  }

  private objectRule(s: Schema, name: string, at: string): string {
    this.primitive('space');
    const props = s.properties ?? {};
    if (!isObject(props)) throw new SchemaGrammarError("'properties' must be an object", at);
    const required = s.required ?? [];
    if (!Array.isArray(required) || !required.every((r) => typeof r === 'string')) throw new SchemaGrammarError("'required' must be an array of strings", at);
    for (const r of required) if (!(r in props)) throw new SchemaGrammarError(`'required' names '${String(r).slice(0, 60)}', which is not in 'properties'`, at);
    const extra = s.additionalProperties;
    const keys = Object.keys(props);
    if (extra !== undefined && extra !== false) {
      if (keys.length > 0) throw new SchemaGrammarError("'additionalProperties' together with 'properties' is not supported (set it to false)", at);
      if (extra === true) return this.primitive('object');
      // An object whose values follow one schema: {"any key": value, ...}.
      const value = this.visit(extra, `${name}-value`, `${at}/additionalProperties`);
      const kv = this.add(`${name}-kv`, `${this.primitive('string')} ":" space ${value}`);
      return this.add(name, `"{" space ${repetition(kv, 0, null, '"," space')} "}" space`);
    }
    const kv = (k: string): string => this.add(`${name}-${k}-kv`, `${gbnfLiteral(JSON.stringify(k))} space ":" space ${this.visit(props[k], `${name}-${k}`, `${at}/properties/${k}`)}`);
    const req = keys.filter((k) => required.includes(k)).map(kv);
    const opt = keys.filter((k) => !required.includes(k)).map(kv);
    let inner: string;
    if (req.length > 0) {
      inner = [req.join(' "," space '), ...opt.map((o) => `("," space ${o})?`)].join(' ');
    } else if (opt.length > 0) {
      // No required key: the first one present has no comma before it.
      let next = '';
      for (let i = opt.length - 1; i >= 0; i--) {
        const rest = opt.slice(i + 1).map((o) => `("," space ${o})?`).join(' ');
        next = this.add(`${name}-tail-${i}`, `${opt[i]}${rest ? ` ${rest}` : ''}${next ? ` | ${next}` : ''}`);
      }
      inner = `${next}?`;
    } else {
      inner = '';
    }
    return this.add(name, `"{" space ${inner ? `${inner} ` : ''}"}" space`);
  }
}

/** The grammar of JSON text that `schema` validates (a GBNF string with a `root` rule). */
export function jsonSchemaToGbnf(schema: unknown): string {
  const c = new Converter(schema);
  const top = c.visit(schema, 'root', '');
  // The root must be called `root`; a primitive answer (a bare string, say) gets one of its own.
  if (top !== 'root') return `root ::= ${top}\n${c.grammar()}`;
  return c.grammar();
}

/** Any JSON object: OpenAI's response_format json_object and Ollama's format "json". */
export const JSON_OBJECT_GBNF: string = jsonSchemaToGbnf({ type: 'object', additionalProperties: true });
