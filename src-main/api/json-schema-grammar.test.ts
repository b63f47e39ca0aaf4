// The converter's grammars, read as rules: each schema keyword becomes the rule llama.cpp's
// conventions give it, and what cannot be honoured is an error naming it. (That the grammars
// parse and hold a model to its schema is tested on a real model in serve-structured.test.ts.)
import { describe, expect, it } from 'vitest';
import { JSON_OBJECT_GBNF, SchemaGrammarError, gbnfLiteral, jsonSchemaToGbnf } from './json-schema-grammar.js';
import { checkOllamaFormat, checkResponseFormat } from './response-format.js';
import { ApiError } from './errors.js';

/** rule name → body */
function rules(gbnf: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of gbnf.trim().split('\n')) {
    const i = line.indexOf(' ::= ');
    expect(i, line).toBeGreaterThan(0);
    out[line.slice(0, i)] = line.slice(i + 5);
  }
  return out;
}

describe('JSON schema to GBNF', () => {
  it('an object: required keys in order, then optional ones each behind a comma; bounded strings, enums, small integer ranges', () => {
    const r = rules(
      jsonSchemaToGbnf({
        type: 'object',
        properties: { tag: { type: 'string', maxLength: 3 }, mood: { enum: ['up', 'down'] }, n: { type: 'integer', minimum: 1, maximum: 3 }, note: { type: 'number' } },
        required: ['mood', 'tag', 'n'],
        additionalProperties: false,
      }),
    );
    expect(r.root).toBe('"{" space root-tag-kv "," space root-mood-kv "," space root-n-kv ("," space root-note-kv)? "}" space');
    expect(r['root-tag']).toBe('"\\"" char{0,3} "\\"" space');
    expect(r['root-mood']).toBe('("\\"up\\"" | "\\"down\\"") space');
    expect(r['root-n']).toBe('("1" | "2" | "3") space');
    expect(r['root-note-kv']).toBe('"\\"note\\"" space ":" space number');
    // The primitives it uses, as llama.cpp writes them, and only those.
    expect(r.space).toBe('| " " | "\\n"{1,2} [ \\t]{0,20}');
    expect(Object.keys(r)).not.toContain('value');
  });

  it('no required key: the first present one takes no comma', () => {
    const r = rules(jsonSchemaToGbnf({ type: 'object', properties: { a: { type: 'boolean' }, b: { type: 'null' } } }));
    expect(r.root).toBe('"{" space root-tail-0? "}" space');
    expect(r['root-tail-0']).toBe('root-a-kv ("," space root-b-kv)? | root-tail-1');
    expect(r['root-tail-1']).toBe('root-b-kv');
  });

  it('arrays with item counts, tuples, unions, nullable types, local $refs (recursive too)', () => {
    expect(rules(jsonSchemaToGbnf({ type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 3 })).root).toBe('"[" space integer ("," space integer){0,2} "]" space');
    expect(rules(jsonSchemaToGbnf({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'boolean' }] })).root).toBe('"[" space string "," space boolean "]" space');
    // items as an array: the older tuple form, as llama.cpp's own suite sends it
    expect(rules(jsonSchemaToGbnf({ items: [{ type: 'integer' }] })).root).toBe('"[" space integer "]" space');
    expect(rules(jsonSchemaToGbnf({ type: ['string', 'null'] })).root).toBe('string | null');
    expect(rules(jsonSchemaToGbnf({ anyOf: [{ const: 1 }, { const: 'x' }] })).root).toBe('root-0 | root-1');
    const tree = rules(jsonSchemaToGbnf({ $defs: { node: { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/$defs/node' } } }, required: ['kids'] } }, $ref: '#/$defs/node' }));
    expect(tree.root).toBe('ref-node');
    expect(tree['ref-node-def-kids']).toBe('"[" space (ref-node ("," space ref-node)*)? "]" space');
  });

  it('any JSON object for json_object; an empty schema is any value', () => {
    expect(rules(JSON_OBJECT_GBNF).root).toBe('object');
    expect(rules(jsonSchemaToGbnf({})).root).toBe('value');
  });

  it('a keyword it cannot honour is an error that names it and where', () => {
    const cases: [unknown, RegExp][] = [
      [{ type: 'string', pattern: '^a$' }, /'pattern' is not supported/],
      [{ type: 'object', properties: { a: { type: 'string', format: 'email' } } }, /'format' is not supported \(at \/properties\/a\)/],
      [{ allOf: [{}] }, /'allOf'/],
      [{ type: 'number', minimum: 0 }, /integers only/],
      [{ type: 'integer', minimum: -5 }, /bounded on both sides/],
      [{ type: 'string', maxLength: 100_000 }, /above 1000/],
      [{ type: 'object', properties: { a: {} }, required: ['b'] }, /'b', which is not in 'properties'/],
      [{ $ref: 'https://example.com/s.json' }, /only local references/],
      [{ $ref: '#/$defs/missing' }, /names no definition/],
      [{ type: 'date' }, /unknown type/],
      [false, /matches nothing/],
      [{ type: 'object', properties: { a: {} }, anyOf: [{ required: ['a'] }] }, /'anyOf' together with 'type'/],
      [{ $ref: '#/$defs/a', maxLength: 3, $defs: { a: { type: 'string' } } }, /'\$ref' together with 'maxLength'/],
      [{ enum: ['a', 'b'], minLength: 2 }, /'enum' together with 'minLength'/],
    ];
    for (const [schema, message] of cases) {
      let err: unknown = null;
      try {
        jsonSchemaToGbnf(schema);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(schema)).toBeInstanceOf(SchemaGrammarError);
      expect((err as Error).message).toMatch(message);
    }
  });

  it('literals escape quotes, backslashes and control characters', () => {
    expect(gbnfLiteral('a"b\\c\nd\x01')).toBe('"a\\"b\\\\c\\nd\\x01"');
  });
});

describe('response formats', () => {
  it('text is no grammar; json_object any object; json_schema its schema; Ollama\'s "json" and schemas the same', () => {
    expect(checkResponseFormat({ type: 'text' })).toBeNull();
    expect(checkResponseFormat({ type: 'json_object' })).toBe(JSON_OBJECT_GBNF);
    const schema = { type: 'object', properties: { a: { type: 'boolean' } }, required: ['a'], additionalProperties: false };
    expect(checkResponseFormat({ type: 'json_schema', json_schema: { name: 'x', schema, strict: true } })).toBe(jsonSchemaToGbnf(schema));
    expect(checkOllamaFormat('json')).toBe(JSON_OBJECT_GBNF);
    expect(checkOllamaFormat(schema)).toBe(jsonSchemaToGbnf(schema));
    expect(checkOllamaFormat('')).toBeNull();
  });

  it('a malformed format is a 400 naming the field', () => {
    const refused = (f: () => unknown): ApiError => {
      try {
        f();
      } catch (e) {
        if (e instanceof ApiError) return e;
      }
      throw new Error('expected a refusal');
    };
    expect(refused(() => checkResponseFormat('json')).param).toBe('response_format');
    expect(refused(() => checkResponseFormat({ type: 'json_schema' })).param).toBe('response_format.json_schema');
    expect(refused(() => checkResponseFormat({ type: 'json_schema', json_schema: { schema: {}, strict: 'yes' } })).param).toBe('response_format.json_schema.strict');
    expect(refused(() => checkResponseFormat({ type: 'json_schema', json_schema: { schema: {}, colour: 1 } })).code).toBe('unknown_parameter');
    expect(refused(() => checkOllamaFormat('yaml')).param).toBe('format');
    expect(refused(() => checkOllamaFormat({ type: 'string', pattern: 'x' })).code).toBe('unsupported_schema');
    // Many wide integer ranges: a grammar past the native limit is refused here, by name.
    const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`p${i}`, { type: 'integer', minimum: 0, maximum: 999 }])) };
    expect(refused(() => checkResponseFormat({ type: 'json_schema', json_schema: { schema: wide } })).message).toMatch(/larger than 1048576 bytes/);
  });
});
