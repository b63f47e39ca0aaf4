// OpenAI's tool calling fields of /v1/chat/completions, checked: `tools` (functions with a JSON
// schema of their arguments), `tool_choice` and `parallel_tool_calls`, and the grammar that
// forces a call when the client asks for one (`required` or a named function): the output is
// then `<tool_call>\n{"name": …, "arguments": …}\n</tool_call>` whatever the weights, in the
// Hermes / Qwen2.5 format the supported templates teach their models. Pure.
import type { ToolSpec } from '../shared/worker-protocol.js';
import { badRequest } from './errors.js';
import { given, type Body } from './check-value.js';
import { SchemaGrammarError, jsonSchemaToGbnf } from './json-schema-grammar.js';
import { MAX_GRAMMAR_BYTES } from './response-format.js';

export const MAX_TOOLS = 128;
export const MAX_DESCRIPTION = 8192;
/** OpenAI's rule for function names. */
const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const TOOL_FIELDS = new Set(['type', 'function']);
const FUNCTION_FIELDS = new Set(['name', 'description', 'parameters', 'strict']);

export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

export interface ToolRequest {
  tools: ToolSpec[];
  choice: ToolChoice;
  /** false: at most one call is returned. */
  parallel: boolean;
  /** The grammar of a forced call (choice required or named), else null. */
  grammar: string | null;
}

const isObject = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);
const clip = (k: string) => k.slice(0, 60);

function checkTool(v: unknown, i: number): ToolSpec {
  const at = `tools[${i}]`;
  if (!isObject(v)) throw badRequest(`'${at}' must be an object {"type": "function", "function": {...}}`, at, 'invalid_type');
  for (const k of Object.keys(v)) if (!TOOL_FIELDS.has(k)) throw badRequest(`Unrecognized request argument supplied: ${at}.${clip(k)}`, `${at}.${clip(k)}`, 'unknown_parameter');
  if (v.type !== 'function') throw badRequest(`'${at}.type' must be "function" (the only tool type this server calls)`, `${at}.type`, 'invalid_value');
  const f = v.function;
  if (!isObject(f)) throw badRequest(`'${at}.function' is required: {"name": …, "description": …, "parameters": {…}}`, `${at}.function`, 'missing_required_parameter');
  for (const k of Object.keys(f)) if (!FUNCTION_FIELDS.has(k)) throw badRequest(`Unrecognized request argument supplied: ${at}.function.${clip(k)}`, `${at}.function.${clip(k)}`, 'unknown_parameter');
  if (typeof f.name !== 'string' || !NAME.test(f.name)) throw badRequest(`'${at}.function.name' must be 1 to 64 letters, digits, _ or -`, `${at}.function.name`, 'invalid_value');
  if (given(f.description) && (typeof f.description !== 'string' || f.description.length > MAX_DESCRIPTION)) {
    throw badRequest(`'${at}.function.description' must be a string of at most ${MAX_DESCRIPTION} characters`, `${at}.function.description`, 'invalid_value');
  }
  if (given(f.parameters) && !isObject(f.parameters)) throw badRequest(`'${at}.function.parameters' must be a JSON schema object`, `${at}.function.parameters`, 'invalid_type');
  if (given(f.strict) && typeof f.strict !== 'boolean') throw badRequest(`'${at}.function.strict' must be true or false`, `${at}.function.strict`, 'invalid_type');
  return { name: f.name, ...(typeof f.description === 'string' ? { description: f.description } : {}), ...(given(f.parameters) ? { parameters: f.parameters } : {}) };
}

function checkTools(v: unknown): ToolSpec[] {
  if (!given(v)) return [];
  if (!Array.isArray(v)) throw badRequest("'tools' must be an array of tools", 'tools', 'invalid_type');
  if (v.length > MAX_TOOLS) throw badRequest(`'tools' may hold at most ${MAX_TOOLS} tools, got ${v.length}`, 'tools', 'invalid_value');
  const tools = v.map(checkTool);
  const seen = new Set<string>();
  for (const [i, t] of tools.entries()) {
    if (seen.has(t.name)) throw badRequest(`'tools[${i}].function.name' ${t.name} is declared twice`, `tools[${i}].function.name`, 'invalid_value');
    seen.add(t.name);
  }
  return tools;
}

function checkChoice(v: unknown, tools: ToolSpec[]): ToolChoice {
  if (!given(v)) return tools.length > 0 ? 'auto' : 'none';
  if (v === 'auto' || v === 'none' || v === 'required') {
    if (v === 'required' && tools.length === 0) throw badRequest("'tool_choice' required needs 'tools' to call", 'tool_choice', 'invalid_value');
    return v;
  }
  if (!isObject(v)) throw badRequest("'tool_choice' must be \"auto\", \"none\", \"required\" or {\"type\": \"function\", \"function\": {\"name\": …}}", 'tool_choice', 'invalid_value');
  for (const k of Object.keys(v)) if (!TOOL_FIELDS.has(k)) throw badRequest(`Unrecognized request argument supplied: tool_choice.${clip(k)}`, `tool_choice.${clip(k)}`, 'unknown_parameter');
  if (v.type !== 'function') throw badRequest("'tool_choice.type' must be \"function\" (allowed_tools and custom tools are not supported)", 'tool_choice.type', 'invalid_value');
  const f = v.function;
  if (!isObject(f) || typeof f.name !== 'string') throw badRequest("'tool_choice.function.name' is required: the name of a function in 'tools'", 'tool_choice.function', 'missing_required_parameter');
  for (const k of Object.keys(f)) if (k !== 'name') throw badRequest(`Unrecognized request argument supplied: tool_choice.function.${clip(k)}`, `tool_choice.function.${clip(k)}`, 'unknown_parameter');
  if (!tools.some((t) => t.name === f.name)) throw badRequest(`'tool_choice.function.name' ${JSON.stringify(f.name.slice(0, 64))} is not a function in 'tools'`, 'tool_choice.function.name', 'invalid_value');
  return { name: f.name };
}

/** The JSON of one call of `t`: {"name": its name, "arguments": what its schema allows}. */
const callSchema = (t: ToolSpec) => ({
  type: 'object',
  properties: { name: { const: t.name }, arguments: t.parameters ?? { type: 'object' } },
  required: ['name', 'arguments'],
  additionalProperties: false,
});

/** A GBNF that admits exactly one `<tool_call>` block calling one of `tools`. */
export function forcedCallGrammar(tools: ToolSpec[], param: string): string {
  const schema = tools.length === 1 ? callSchema(tools[0] as ToolSpec) : { anyOf: tools.map(callSchema) };
  let json: string;
  try {
    json = jsonSchemaToGbnf(schema);
  } catch (e) {
    if (e instanceof SchemaGrammarError) throw badRequest(`'${param}' cannot be forced: a tool's parameters cannot be followed: ${e.message}`, param, 'unsupported_schema');
    throw e;
  }
  // The call's JSON becomes a rule of its own under the tags (the converter names its top rule root).
  const g = `root ::= "<tool_call>\\n" tool-call-json "\\n</tool_call>"\n${json.replace(/^root ::= /m, 'tool-call-json ::= ')}`;
  if (Buffer.byteLength(g) > MAX_GRAMMAR_BYTES) throw badRequest(`'${param}' cannot be forced: the grammar of its call would be larger than ${MAX_GRAMMAR_BYTES} bytes`, param, 'unsupported_schema');
  return g;
}

/** Null when the request has no tool fields in use. */
export function checkToolRequest(b: Body): ToolRequest | null {
  const tools = checkTools(b.tools);
  const choice = checkChoice(b.tool_choice, tools);
  const p = b.parallel_tool_calls;
  if (given(p) && typeof p !== 'boolean') throw badRequest("'parallel_tool_calls' must be true or false", 'parallel_tool_calls', 'invalid_type');
  if (tools.length === 0) return null;
  let grammar: string | null = null;
  if (choice === 'required') grammar = forcedCallGrammar(tools, 'tool_choice');
  else if (typeof choice === 'object') grammar = forcedCallGrammar(tools.filter((t) => t.name === choice.name), 'tool_choice');
  return { tools, choice, parallel: p !== false, grammar };
}

/** Templates that render tools in the Hermes / Qwen2.5 format: the only ones whose calls this server parses. */
export function templateSupportsTools(template: string | null | undefined): boolean {
  return typeof template === 'string' && template.includes('<tool_call>');
}

export const NO_TOOL_TEMPLATE_MESSAGE =
  "this model's chat template does not render tools in the Hermes / Qwen2.5 format (it never mentions <tool_call>), the only tool-call format this server renders and parses: send the request without 'tools' and without tool messages";
