// Structured output requests, as the grammar the sampler is held to: OpenAI's response_format
// (`text`, `json_object`, `json_schema` with its schema), llama-server's `grammar` (GBNF text,
// parsed by llama.cpp in the worker: a grammar it rejects is a 400 from there) and Ollama's
// `format` ("json" or a schema). Pure.
import { badRequest } from './errors.js';
import { given, type Body } from './check-value.js';
import { JSON_OBJECT_GBNF, SchemaGrammarError, jsonSchemaToGbnf } from './json-schema-grammar.js';

/** The native side refuses longer grammars too. */
export const MAX_GRAMMAR_BYTES = 1 << 20;

const FORMAT_FIELDS = new Set(['type', 'json_schema', 'schema']);
const JSON_SCHEMA_FIELDS = new Set(['name', 'description', 'schema', 'strict']);

export function checkGrammarText(v: unknown, param: string): string | null {
  if (!given(v)) return null;
  if (typeof v !== 'string') throw badRequest(`'${param}' must be a string: a GBNF grammar with a 'root' rule`, param, 'invalid_type');
  if (v === '') return null;
  if (Buffer.byteLength(v) > MAX_GRAMMAR_BYTES) throw badRequest(`'${param}' must be at most ${MAX_GRAMMAR_BYTES} bytes`, param, 'invalid_value');
  if (v.includes('\0')) throw badRequest(`'${param}' must not hold a NUL character`, param, 'invalid_value');
  return v;
}

function grammarOf(schema: unknown, param: string): string {
  try {
    const g = jsonSchemaToGbnf(schema);
    if (Buffer.byteLength(g) > MAX_GRAMMAR_BYTES) throw new SchemaGrammarError(`its grammar would be larger than ${MAX_GRAMMAR_BYTES} bytes`, '');
    return g;
  } catch (e) {
    if (e instanceof SchemaGrammarError) throw badRequest(`'${param}' cannot be followed: ${e.message}`, param, 'unsupported_schema');
    throw e;
  }
}

/** llama-server's own `json_schema` field: a JSON schema the output must follow. */
export function checkJsonSchema(v: unknown): string | null {
  return given(v) ? grammarOf(v, 'json_schema') : null;
}

const isObject = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);

/** OpenAI's response_format: null for plain text, else the grammar of the JSON asked for. */
export function checkResponseFormat(v: unknown): string | null {
  if (!given(v)) return null;
  if (!isObject(v)) throw badRequest("'response_format' must be an object such as {\"type\": \"json_object\"}", 'response_format', 'invalid_type');
  for (const k of Object.keys(v)) if (!FORMAT_FIELDS.has(k)) throw badRequest(`Unrecognized request argument supplied: response_format.${k.slice(0, 60)}`, `response_format.${k.slice(0, 60)}`, 'unknown_parameter');
  switch (v.type) {
    case 'text':
      return null;
    case 'json_object':
      // llama-server also takes a schema here.
      return given(v.schema) ? grammarOf(v.schema, 'response_format.schema') : JSON_OBJECT_GBNF;
    case 'json_schema': {
      const js = v.json_schema;
      if (!isObject(js)) throw badRequest("'response_format.json_schema' is required with type json_schema: {\"name\": …, \"schema\": {…}, \"strict\": true}", 'response_format.json_schema', 'missing_required_parameter');
      for (const k of Object.keys(js)) if (!JSON_SCHEMA_FIELDS.has(k)) throw badRequest(`Unrecognized request argument supplied: response_format.json_schema.${k.slice(0, 60)}`, `response_format.json_schema.${k.slice(0, 60)}`, 'unknown_parameter');
      if (given(js.name) && (typeof js.name !== 'string' || js.name.length > 64)) throw badRequest("'response_format.json_schema.name' must be a string of at most 64 characters", 'response_format.json_schema.name', 'invalid_value');
      if (given(js.strict) && typeof js.strict !== 'boolean') throw badRequest("'response_format.json_schema.strict' must be true or false", 'response_format.json_schema.strict', 'invalid_type');
      // The grammar holds the output to the schema whether or not strict is asked for.
      return grammarOf(given(js.schema) ? js.schema : {}, 'response_format.json_schema.schema');
    }
    default:
      throw badRequest("'response_format.type' must be text, json_object or json_schema", 'response_format.type', 'invalid_value');
  }
}

/** Ollama's format: "" for text, "json" for any JSON object, or a JSON schema. */
export function checkOllamaFormat(v: unknown): string | null {
  if (!given(v) || v === '') return null;
  if (v === 'json') return JSON_OBJECT_GBNF;
  if (isObject(v)) return grammarOf(v, 'format');
  throw badRequest("'format' must be \"json\" or a JSON schema object", 'format', 'invalid_value');
}
