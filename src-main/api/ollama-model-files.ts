// Ollama's DELETE /api/delete, POST /api/copy and POST /api/create: the request checked, the
// backend's models folder changed, answered as Ollama answers them (200 with no body; a missing
// model 404, a name that is not a model name 400, as {"error"}). /api/create makes a model `from`
// an existing one as it is (a copy under the new name); what it cannot write into the file
// (`system`, `template`, `parameters`, adapters, quantizing, blobs) is a 400, not dropped.
import type { ServerResponse } from 'node:http';
import type { ApiBackend } from './backend.js';
import { badRequest, notFound } from './errors.js';
import { given, unknownNames, type Body } from './check-value.js';
import { sendJson } from './http-reply.js';
import { OLLAMA_NDJSON_HEADERS, ndjson } from './ollama-shape.js';

export interface ModelFilesContext {
  backend: ApiBackend;
  res: ServerResponse;
  noteIgnored: (names: string[]) => void;
}

function asBody(body: unknown): Body {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the request body must be a JSON object', null, 'invalid_body');
  return body as Body;
}

function nameIn(b: Body, param: string, alias?: string): string {
  const v = given(b[param]) || alias === undefined ? b[param] : b[alias];
  if (typeof v !== 'string' || v.length === 0) throw badRequest(`'${param}' is required: a model name`, param, given(v) ? 'invalid_type' : 'missing_required_parameter');
  return v;
}

/** Fields of /api/create that would change the model: a GGUF's metadata is not rewritten here. */
const CREATE_CHANGES = ['system', 'template', 'parameters', 'messages', 'adapters', 'files', 'quantize', 'license', 'modelfile'];

async function create(b: Body, ctx: ModelFilesContext): Promise<void> {
  ctx.noteIgnored(unknownNames(b, new Set(['model', 'name', 'from', 'stream', ...CREATE_CHANGES])));
  for (const k of CREATE_CHANGES) {
    const v = b[k];
    const empty = !given(v) || v === '' || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && Object.keys(v).length === 0);
    if (!empty) throw badRequest(`'${k}' is not supported: /api/create here makes a model 'from' an existing one as it is (its GGUF metadata is not rewritten); set system prompts and parameters per request`, k, 'unsupported_parameter');
  }
  const stream = b.stream ?? true;
  if (typeof stream !== 'boolean') throw badRequest("'stream' must be true or false", 'stream', 'invalid_type');
  if (!ctx.backend.copyModel) throw notFound('this server does not manage model files', 'unknown_route');
  await ctx.backend.copyModel(nameIn(b, 'from'), nameIn(b, 'model', 'name'));
  if (!stream) return sendJson(ctx.res, 200, { status: 'success' });
  ctx.res.writeHead(200, OLLAMA_NDJSON_HEADERS).end(ndjson({ status: 'copying model' }) + ndjson({ status: 'success' }));
}

export async function handleModelFiles(route: '/api/delete' | '/api/copy' | '/api/create', body: unknown, ctx: ModelFilesContext): Promise<void> {
  const b = asBody(body);
  const { backend, res } = ctx;
  if (route === '/api/create') return create(b, ctx);
  if (route === '/api/delete') {
    ctx.noteIgnored(unknownNames(b, new Set(['model', 'name'])));
    if (!backend.deleteModel) throw notFound('this server does not manage model files', 'unknown_route');
    await backend.deleteModel(nameIn(b, 'model', 'name'));
  } else {
    ctx.noteIgnored(unknownNames(b, new Set(['source', 'destination'])));
    if (!backend.copyModel) throw notFound('this server does not manage model files', 'unknown_route');
    await backend.copyModel(nameIn(b, 'source'), nameIn(b, 'destination'));
  }
  res.writeHead(200, { 'content-length': 0 }).end();
}
