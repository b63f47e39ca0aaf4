// Ollama's DELETE /api/delete and POST /api/copy: the request checked, the backend's models
// folder changed, answered as Ollama answers them (200 with no body; a missing model 404, a
// name that is not a model name 400, as {"error"}).
import type { ServerResponse } from 'node:http';
import type { ApiBackend } from './backend.js';
import { badRequest, notFound } from './errors.js';
import { given, unknownNames, type Body } from './check-value.js';

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

export async function handleModelFiles(route: '/api/delete' | '/api/copy', body: unknown, ctx: ModelFilesContext): Promise<void> {
  const b = asBody(body);
  const { backend, res } = ctx;
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
