// Ollama's POST /api/pull: `model` (or `name`) an http(s) URL of a GGUF file, downloaded into
// RAMforge's models folder by the backend (`ramforge pull`'s download code). Streamed (the
// default) as Ollama streams it: {"status": "pulling manifest"}, then
// {"status": "downloading NAME", "digest", "total", "completed"} as the bytes arrive (at most
// about one line per percent), {"status": "verifying sha256 digest"}, {"status": "success"};
// with `stream: false` only the last. An error after the stream began is a last {"error"} line.
import type { ServerResponse } from 'node:http';
import type { ApiBackend, PullProgress } from './backend.js';
import { asApiError, badRequest, notFound } from './errors.js';
import { given, optBool, unknownNames, type Body } from './check-value.js';
import { sendJson } from './http-reply.js';
import { isModelUrl } from '../shared/remote/model-url.js';
import { OLLAMA_NDJSON_HEADERS, ndjson, ollamaErrorBody } from './ollama-shape.js';

const PULL_FIELDS = new Set(['model', 'name', 'insecure', 'stream']);

export interface PullContext {
  backend: ApiBackend;
  res: ServerResponse;
  noteIgnored: (names: string[]) => void;
}

function checkPull(body: unknown): { url: string; stream: boolean; ignored: string[] } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('the request body must be a JSON object', null, 'invalid_body');
  const b = body as Body;
  const ignored = unknownNames(b, PULL_FIELDS);
  optBool(b, 'insecure');
  const url = given(b.model) ? b.model : b.name;
  if (typeof url !== 'string' || url.length === 0 || url.length > 4096) throw badRequest("'model' is required: the http(s) URL of a .gguf file", 'model', given(url) ? 'invalid_type' : 'missing_required_parameter');
  // Checked before the stream begins, so that a name gets its 400.
  if (!isModelUrl(url)) throw badRequest(`this server pulls a model from an http(s) URL of a .gguf file (as ramforge pull does), got '${url.slice(0, 200)}': there is no registry of model names here`, 'model', 'invalid_value');
  return { url, stream: optBool(b, 'stream') ?? true, ignored };
}

/** Progress lines, at most about one per percent of each file (every chunk would be thousands). */
function progressLine(write: (s: string) => void): (p: PullProgress) => void {
  const last = new Map<string, number>();
  return (p) => {
    const step = p.total ? p.total / 100 : 1 << 20;
    const prev = last.get(p.file);
    if (prev !== undefined && p.completed - prev < step && p.completed !== p.total) return;
    last.set(p.file, p.completed);
    write(ndjson({ status: `downloading ${p.file}`, digest: p.file, total: p.total ?? 0, completed: p.completed }));
  };
}

export async function handleOllamaPull(body: unknown, ctx: PullContext): Promise<void> {
  const req = checkPull(body);
  ctx.noteIgnored(req.ignored);
  const { backend, res } = ctx;
  if (!backend.pull) throw notFound('this server does not download models', 'unknown_route');
  if (!req.stream) {
    await backend.pull(req.url, () => undefined);
    return sendJson(res, 200, { status: 'success' });
  }
  res.writeHead(200, OLLAMA_NDJSON_HEADERS);
  const write = (s: string): void => {
    if (!res.destroyed) res.write(s);
  };
  write(ndjson({ status: 'pulling manifest' }));
  try {
    await backend.pull(req.url, progressLine(write));
  } catch (e) {
    write(ndjson(ollamaErrorBody(asApiError(e))));
    return void res.end();
  }
  write(ndjson({ status: 'verifying sha256 digest' }));
  write(ndjson({ status: 'success' }));
  res.end();
}
