// Validation of POST /v1/embeddings and Ollama's /api/embed bodies: the texts to embed and how
// the vectors are wanted. OpenAI's token-id inputs (LangChain's OpenAIEmbeddings sends them) are
// taken as ids of the model's own vocabulary, as llama-server takes them. Pure.
import { badRequest } from './errors.js';
import type { EmbedInput } from '../shared/worker-protocol.js';
import { given, optBool, optInt, optString, tokenIds, unknownNames, type Body } from './check-value.js';
import { checkOllamaOptions } from './ollama-options.js';
import { checkModel } from './validate-request.js';

/** Texts one request may embed (OpenAI's limit). */
export const MAX_INPUTS = 2048;
const MAX_TEXT_CHARS = 1 << 20;

export interface EmbeddingsRequest {
  /** null: none named (the loaded model). */
  model: string | null;
  /** Texts, or (OpenAI's route) token ids of the model's vocabulary. */
  texts: EmbedInput[];
  /** OpenAI: float arrays or base64 of little-endian float32. */
  encoding: 'float' | 'base64';
  /** The first this many values of each vector (then scaled to unit length); at most the model's n_embd. */
  dimensions: number | null;
  /** Ollama's older /api/embeddings gives the vector as the model computes it, not scaled. */
  normalize: boolean;
  /** A text longer than the embeddings context keeps its first tokens (Ollama's default); false: it is a 400. */
  truncate: boolean;
  /** Fields given that this server does not know: accepted, named back to the client. */
  ignored: string[];
}

const OPENAI_FIELDS = new Set(['model', 'input', 'encoding_format', 'dimensions', 'user']);
const OLLAMA_FIELDS = new Set(['model', 'input', 'truncate', 'dimensions', 'keep_alive', 'options']);
const OLLAMA_LEGACY_FIELDS = new Set(['model', 'prompt', 'keep_alive', 'options']);

function asBody(v: unknown): Body {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw badRequest('the request body must be a JSON object', null, 'invalid_body');
  return v as Body;
}


const isId = (x: unknown): boolean => typeof x === 'number';

function text(s: unknown, at: string): string {
  if (typeof s !== 'string') throw badRequest(`'${at}' must be a string`, at, 'invalid_type');
  if (s.length > MAX_TEXT_CHARS) throw badRequest(`'${at}' must have at most ${MAX_TEXT_CHARS} characters`, at, 'invalid_value');
  return s;
}

/** One sequence given as ids, or as ids and texts mixed (llama-server's prompts). */
function sequence(v: unknown[], at: string): (number | string)[] {
  if (v.every(isId)) return tokenIds(v, at);
  if (!v.some(isId)) throw badRequest(`'${at}' must hold token ids, or token ids and strings`, at, 'invalid_type');
  return v.map((x, i) => (isId(x) ? (tokenIds([x], `${at}[${i}]`)[0] as number) : text(x, `${at}[${i}]`)));
}

/**
 * `ids`: OpenAI's token-id inputs (an array of ids, or of arrays of ids) are taken too, and as
 * llama-server takes them, ids and strings mixed in one sequence (`[12, "text", 34]`) and lists
 * mixing texts and sequences. An empty text is embedded as llama-server does (its BOS alone).
 */
function checkInput(b: Body, ids = false): EmbedInput[] {
  const v = b.input;
  if (!given(v)) throw badRequest("'input' is required: a string or an array of strings", 'input', 'missing_required_parameter');
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list)) throw badRequest("'input' must be a string or an array of strings", 'input', 'invalid_type');
  if (list.length === 0) throw badRequest("'input' must hold at least one string", 'input', 'invalid_value');
  if (list.length > MAX_INPUTS) throw badRequest(`'input' may hold at most ${MAX_INPUTS} strings`, 'input', 'invalid_value');
  const asIds = list.some((x) => isId(x) || Array.isArray(x));
  if (asIds && !ids) throw badRequest("'input' as token ids is not supported here: send the text", 'input', 'unsupported_value');
  // A list with ids at its top level is one sequence; otherwise each entry is one.
  if (list.some(isId)) return [sequence(list, 'input')];
  return list.map((x: unknown, i) => (Array.isArray(x) ? sequence(x, `input[${i}]`) : text(x, `input[${i}]`)));
}

export function validateEmbeddingsRequest(body: unknown): EmbeddingsRequest {
  const b = asBody(body);
  const ignored = unknownNames(b, OPENAI_FIELDS);
  const model = checkModel(b);
  const texts = checkInput(b, true);
  const format = b.encoding_format;
  if (given(format) && format !== 'float' && format !== 'base64') throw badRequest("'encoding_format' must be float or base64", 'encoding_format', 'invalid_value');
  optString(b, 'user', 1024);
  return { model, texts, encoding: format === 'base64' ? 'base64' : 'float', dimensions: optInt(b, 'dimensions', 1, 1 << 20), normalize: true, truncate: false, ignored };
}

export function validateOllamaEmbed(body: unknown): EmbeddingsRequest {
  const b = asBody(body);
  const ignored = unknownNames(b, OLLAMA_FIELDS);
  const model = checkModel(b);
  const texts = checkInput(b);
  // As Ollama: a text longer than the embeddings context keeps its first tokens unless truncate is false.
  const truncate = optBool(b, 'truncate') ?? true;
  checkOllamaOptions(b.options, ignored);
  return { model, texts, encoding: 'float', dimensions: optInt(b, 'dimensions', 1, 1 << 20), normalize: true, truncate, ignored };
}

/** Ollama's older /api/embeddings: one `prompt`, one vector. */
export function validateOllamaLegacyEmbeddings(body: unknown): EmbeddingsRequest {
  const b = asBody(body);
  const ignored = unknownNames(b, OLLAMA_LEGACY_FIELDS);
  const model = checkModel(b);
  const prompt = b.prompt;
  if (typeof prompt !== 'string' || prompt === '') throw badRequest("'prompt' must be a non-empty string", 'prompt', given(prompt) ? 'invalid_value' : 'missing_required_parameter');
  if (prompt.length > MAX_TEXT_CHARS) throw badRequest(`'prompt' must have at most ${MAX_TEXT_CHARS} characters`, 'prompt', 'invalid_value');
  checkOllamaOptions(b.options, ignored);
  return { model, texts: [prompt], encoding: 'float', dimensions: null, normalize: false, truncate: true, ignored };
}
