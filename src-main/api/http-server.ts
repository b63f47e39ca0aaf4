// The OpenAI-compatible HTTP server: routes, access checks, body limits, and the guarantee that
// every request ends — answered, refused with a 4xx/5xx in OpenAI's shape, or closed — and that
// nothing a client sends can throw out of a listener and end the process.
import type { EmbedPooling } from '../shared/worker-protocol.js';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { RAMFORGE_VERSION } from '../shared/version.js';
import type { ApiBackend } from './backend.js';
import { handleCompletion } from './completion-handler.js';
import { ApiError, asApiError, notFound } from './errors.js';
import { accessProblem, bearerCheck, isLoopbackHost } from './http-access.js';
import { handleEmbeddings } from './embeddings-handler.js';
import { validateEmbeddingsRequest } from './embeddings-request.js';
import { ClientGone, DEFAULT_BODY_LIMITS, readJsonBody, type BodyLimits } from './http-body.js';
import { corsHeaders, preflightHeaders } from './cors.js';
import { answerTokens } from './tokenize-routes.js';
import { answerApplyTemplate } from './apply-template-route.js';
import { answerChatInputTokens, answerCountTokens, answerInputTokens } from './token-count-routes.js';
import { handleLlamaCompletion } from './llama-completion.js';
import { handleResponses } from './responses-handler.js';
import { handleMessages } from './messages-handler.js';
import type { ServerMetrics } from './metrics.js';
import { anthropicErrorBody } from './messages-shape.js';
import { drainRequest, sendError, sendJson, type ErrorShape } from './http-reply.js';
import { namesModel } from './model-id.js';
import { modelList, modelObject, propsObject, slotsList } from './models-list.js';
import { IGNORED_HEADER, ignoredHeaderValue } from './ignored-header.js';
import { OLLAMA_OPEN_ROUTES, OLLAMA_ROUTES, isOllamaRoute, ollamaGet, ollamaPost, type OllamaPostContext } from './ollama-routes.js';
import { ollamaErrorBody } from './ollama-shape.js';
import { validateChatRequest, validateCompletionRequest } from './validate-request.js';
import { generationDefaults } from './generation-defaults.js';
import type { ApiSamplingDefaults } from '../shared/api-defaults.js';
import type { ModelNames } from '../shared/model-names.js';
import { namedBackend } from './named-backend.js';

export interface ApiServerOptions {
  backend: ApiBackend;
  /** 127.0.0.1 unless the user asked for another address. */
  host?: string;
  /** 0 = any free port. */
  port: number;
  apiKey?: string | null;
  body?: Partial<BodyLimits>;
  /** Headers must arrive within this long (slow-loris). */
  headersTimeoutMs?: number;
  /** Lines for the log (listen errors after start, ignored parameter names; never request content). */
  log?: (line: string) => void;
  /** Origins whose pages may call the API (`--cors`; `*`: any); none by default. */
  cors?: string[];
  /** GET /metrics answers these (`--metrics`); absent: a 501 saying how to turn it on, as llama-server answers. */
  metrics?: ServerMetrics;
  /** Sampling for fields a request does not set (`serve --temp …`); /props shows them. */
  defaults?: ApiSamplingDefaults;
  /** The names the model is served under (`serve --alias`, `--tags`); absent: its file's. */
  names?: ModelNames;
  /** GET /slots answers (`serve --slots`, the default, as llama-server's); false: a 501 saying how to turn it on. */
  slots?: boolean;
  /** How embeddings pool a text's hidden states (`serve --pooling`, llama-server's); absent: mean. */
  pooling?: EmbedPooling;
}

export interface RunningApiServer {
  /** http://HOST:PORT/v1 */
  url: string;
  port: number;
  host: string;
  close(): Promise<void>;
}

/** What Ollama answers on / (its CLI's heartbeat checks the status; people read the text). */
const OLLAMA_HEARTBEAT = 'Ollama is running';

/** Unix seconds when this process started (GET /metrics' Process-Start-Time-Unix, as llama-server sends it). */
const PROCESS_START_UNIX = Math.round(Date.now() / 1000 - process.uptime());

/** The header OpenAI names each answer's request by. */
const REQUEST_ID_HEADER = 'x-request-id';

/** Connections open at once; past this new ones are closed at once (file descriptors are finite). */
const MAX_CONNECTIONS = 512;

const ROUTES: Record<string, string[]> = {
  '/models': ['GET'],
  '/chat/completions': ['POST'],
  '/completions': ['POST'],
  '/embeddings': ['POST'],
  '/health': ['GET'],
  '/props': ['GET'],
  '/slots': ['GET'],
  '/tokenize': ['POST'],
  '/completion': ['POST'],
  '/infill': ['POST'],
  '/detokenize': ['POST'],
  '/apply-template': ['POST'],
  '/responses': ['POST'],
  '/responses/input_tokens': ['POST'],
  '/chat/completions/input_tokens': ['POST'],
  '/metrics': ['GET'],
  '/messages': ['POST'],
  '/messages/count_tokens': ['POST'],
  // Ollama's heartbeat (its CLI sends HEAD /) and the first thing a user opens.
  '/': ['GET', 'HEAD'],
  // Ollama's API on the same port (ollama-routes.ts).
  ...OLLAMA_ROUTES,
};

/** The route of a request target: `/v1/x` and `/x` are the same route (clients configured either way). */
function routeOf(target: string | undefined): string | null {
  if (typeof target !== 'string' || !target.startsWith('/') || target.startsWith('//')) return null;
  const q = target.indexOf('?');
  let p = q < 0 ? target : target.slice(0, q);
  if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
  return p.startsWith('/v1/') ? p.slice(3) : p;
}

/** What every request's handling needs from the server it arrived at. */
interface ServerContext {
  opts: ApiServerOptions;
  limits: BodyLimits;
  auth: (req: IncomingMessage) => ApiError | null;
  loopback: boolean;
  /** The port listened on (known once listening). */
  port: () => number;
  log: (line: string) => void;
  /** Origins let in (`--cors`). */
  cors: readonly string[];
  metrics: ServerMetrics | null;
}

/** Refused before the body was read: the answer, then the rest of the body read and dropped (bounded). */
function refuseShaped(req: IncomingMessage, res: ServerResponse, e: ApiError, headers: Record<string, string>, shape?: ErrorShape): void {
  drainRequest(req, (complete) => {
    if (complete) return sendError(res, e, headers, shape);
    sendError(res, e, { ...headers, connection: 'close' }, shape);
    res.once('finish', () => req.socket.destroy());
  });
}

/** One request: access, route and method checked, GETs answered, a POST's body read and handed on. */
async function handleRequest(req: IncomingMessage, res: ServerResponse, cx: ServerContext): Promise<void> {
  const { opts, limits } = cx;
  const route = routeOf(req.url);
  // Ollama's clients read `{"error": "message"}`, Anthropic's `{"type": "error", …}`; everything else gets OpenAI's shape.
  const shape: ErrorShape | undefined = route !== null && isOllamaRoute(route) ? ollamaErrorBody : route === '/messages' || route === '/messages/count_tokens' ? anthropicErrorBody : undefined;
  const refuse = (req2: IncomingMessage, res2: ServerResponse, e: ApiError, headers: Record<string, string> = {}): void => refuseShaped(req2, res2, e, headers, shape);
  // OpenAI's request id on every answer (openai-python shows it as response.request_id; logs quote it).
  res.setHeader(REQUEST_ID_HEADER, `req_${randomUUID().replace(/-/g, '')}`);
  const problem = accessProblem(req, cx.port(), cx.loopback, cx.cors);
  if (problem) return refuse(req, res, problem);
  for (const [k, v] of Object.entries(corsHeaders(req.headers.origin, cx.cors, [IGNORED_HEADER, REQUEST_ID_HEADER]))) res.setHeader(k, v);
  const methods = route === null ? undefined : (ROUTES[route] ?? (route.startsWith('/models/') ? ['GET'] : undefined));
  if (route === null || methods === undefined) return refuse(req, res, notFound(`unknown route: ${String(req.method)} ${String(req.url).slice(0, 200)}`, 'unknown_route'));
  if (req.method === 'OPTIONS') {
    const headers = { allow: [...methods, 'OPTIONS'].join(', '), ...preflightHeaders(req.headers.origin, cx.cors, [IGNORED_HEADER, REQUEST_ID_HEADER], methods, req.headers['access-control-request-headers']) };
    return drainRequest(req, () => void res.writeHead(204, headers).end());
  }
  if (!methods.includes(req.method ?? '')) {
    return refuse(req, res, new ApiError(405, 'invalid_request_error', `${route} accepts ${methods.join(', ')}, not ${String(req.method).slice(0, 20)}`, 'method_not_allowed'), { allow: methods.join(', ') });
  }
  if (route === '/') return void res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': OLLAMA_HEARTBEAT.length }).end(req.method === 'HEAD' ? undefined : OLLAMA_HEARTBEAT);
  if (route === '/health') {
    const m = opts.backend.model();
    return m instanceof ApiError ? refuse(req, res, m) : sendJson(res, 200, { status: 'ok' });
  }
  if (OLLAMA_OPEN_ROUTES.has(route)) return sendJson(res, 200, ollamaGet(route, opts.backend));
  const denied = cx.auth(req);
  if (denied) return refuse(req, res, denied);
  if (route === '/metrics') {
    // llama-server's answers: 501 when off; the process's start time in a header (counters restart
    // with it), spelt as llama-server spells it: its suite reads the headers into a case-sensitive map.
    if (!cx.metrics) return refuse(req, res, new ApiError(501, 'not_supported_error', '/metrics is off: start the server with --metrics', 'metrics_disabled'));
    const headers = { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'Process-Start-Time-Unix': String(PROCESS_START_UNIX) };
    return void res.writeHead(200, headers).end(cx.metrics.text());
  }
  if (req.method === 'GET') {
    const answer = route.startsWith('/api/') ? ollamaGet(route, opts.backend) : answerGet(route, opts);
    return answer instanceof ApiError ? refuse(req, res, answer) : sendJson(res, 200, answer);
  }
  let body: unknown;
  try {
    body = await readJsonBody(req, limits);
  } catch (e) {
    if (e instanceof ClientGone) return void res.destroy();
    const err = asApiError(e);
    // Too slow: the client gets its answer and the connection goes. Too large: the rest is dropped.
    if (err.status === 408) return sendError(res, err, { connection: 'close' }, shape);
    return refuse(req, res, err);
  }
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  if (res.destroyed || req.socket.destroyed) gone.abort();
  const noteIgnored = (names: string[]): void => {
    const value = ignoredHeaderValue(names);
    if (value === null) return;
    res.setHeader(IGNORED_HEADER, value);
    cx.log(`ramforge API: ${route}: ignored ${value}`);
  };
  try {
    const v1 = String(req.url).startsWith('/v1/');
    await handlePost(route, body, { backend: opts.backend, res, clientGone: gone.signal, noteIgnored, defaults: opts.defaults ?? {}, pooling: opts.pooling ?? 'mean', v1 });
  } catch (e) {
    if (!gone.signal.aborted) sendError(res, asApiError(e), {}, shape);
  }
}

/** OpenAI's and llama-server's GET routes: the answer, or the error to send. */
function answerGet(route: string, opts: ApiServerOptions): object | ApiError {
  const { backend } = opts;
  // llama-server's answer when its /slots is off.
  if (route === '/slots' && (opts.slots === false || !backend.slots)) return new ApiError(501, 'not_supported_error', 'This server does not support slots endpoint. Start it with `--slots`', 'slots_disabled');
  const m = backend.model();
  // While the model loads there is none to list yet: 503, as llama-server answers, not an empty list.
  if (m instanceof ApiError && m.code === 'model_loading') return m;
  if (route === '/models') return modelList(m instanceof ApiError ? null : m);
  if (route === '/props') return m instanceof ApiError ? m : propsObject(m, generationDefaults(opts.defaults));
  if (route === '/slots') return m instanceof ApiError ? m : slotsList(m, backend.slots?.() ?? []);
  let id = route.slice('/models/'.length);
  try {
    id = decodeURIComponent(id);
  } catch {
    // An id that is not valid percent-encoding names no model.
  }
  if (m instanceof ApiError || !namesModel(id, m)) return notFound(`the model '${id.slice(0, 200)}' does not exist`, 'model_not_found');
  return modelObject(m);
}

/** A POST with its body read: Ollama's routes, Anthropic's messages, OpenAI's responses, embeddings, or a (chat) completion. */
async function handlePost(route: string, body: unknown, x: OllamaPostContext): Promise<void> {
  if (isOllamaRoute(route)) return ollamaPost(route, body, x);
  if (route === '/completion' || route === '/infill') return handleLlamaCompletion(body, x, route === '/infill');
  if (route === '/responses') return handleResponses(body, x);
  if (route === '/messages') return handleMessages(body, x);
  if (route === '/tokenize' || route === '/detokenize') return sendJson(x.res, 200, await answerTokens(route, body, x.backend, x.noteIgnored));
  if (route === '/apply-template') return sendJson(x.res, 200, await answerApplyTemplate(body, x.backend, x.noteIgnored));
  if (route === '/responses/input_tokens') return sendJson(x.res, 200, await answerInputTokens(body, x.backend, x.noteIgnored));
  if (route === '/messages/count_tokens') return sendJson(x.res, 200, await answerCountTokens(body, x.backend, x.noteIgnored));
  if (route === '/chat/completions/input_tokens') return sendJson(x.res, 200, await answerChatInputTokens(body, x.backend, x.noteIgnored));
  if (route === '/embeddings') {
    const req = validateEmbeddingsRequest(body);
    x.noteIgnored(req.ignored);
    return handleEmbeddings(req, x.v1 ? 'openai' : 'llama', x);
  }
  const chat = route === '/chat/completions';
  const defaults = generationDefaults(x.defaults);
  const request = chat ? validateChatRequest(body, defaults) : validateCompletionRequest(body, defaults);
  x.noteIgnored(request.ignored);
  await handleCompletion(request, {
    ...x,
    meta: { id: `${chat ? 'chatcmpl' : 'cmpl'}-${randomUUID()}`, created: Math.floor(Date.now() / 1000), systemFingerprint: `ramforge-${RAMFORGE_VERSION}` },
  });
}

/** Malformed requests, oversized headers, timeouts: Node's own 4xx where it still can. */
function answerClientError(e: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) return void socket.destroy();
  const status = e.code === 'HPE_HEADER_OVERFLOW' ? 431 : e.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const text = JSON.stringify({ error: { message: status === 431 ? 'request headers too large' : status === 408 ? 'the request did not arrive in time' : 'malformed HTTP request', type: 'invalid_request_error', param: null, code: null } });
  socket.end(`HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
}

export async function startApiServer(opts: ApiServerOptions): Promise<RunningApiServer> {
  const host = opts.host ?? '127.0.0.1';
  const limits: BodyLimits = { ...DEFAULT_BODY_LIMITS, ...opts.body };
  const log = opts.log ?? ((l: string) => void process.stderr.write(l + '\n'));
  let port = 0;
  const metrics = opts.metrics ?? null;
  const named = opts.names ? namedBackend(opts.backend, opts.names) : opts.backend;
  const backend = metrics ? metrics.counting(named) : named;
  const cx: ServerContext = { opts: { ...opts, backend }, limits, auth: bearerCheck(opts.apiKey ?? null), loopback: isLoopbackHost(host), port: () => port, log, cors: opts.cors ?? [], metrics };
  const handle = (req: IncomingMessage, res: ServerResponse) => handleRequest(req, res, cx);

  // Node's own limits come after ours (a body gets our 408 first); headers have only Node's.
  const requestTimeout = limits.totalMs + 5000;
  const headersTimeout = Math.min(opts.headersTimeoutMs ?? 10_000, requestTimeout);
  const server: Server = createServer({ requestTimeout, headersTimeout, connectionsCheckingInterval: 1000 }, (req, res) => {
    handle(req, res).catch((e: unknown) => {
      try {
        sendError(res, asApiError(e), { connection: 'close' });
      } catch {
        res.destroy();
      }
    });
  });
  server.maxConnections = MAX_CONNECTIONS;
  // A streamed answer may wait minutes for its first token on a model far larger than RAM: no
  // socket inactivity timeout (headers and bodies have their own limits above).
  server.setTimeout(0);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  let logged = 0;
  server.on('error', (e: Error) => {
    if (logged++ < 5) log(`ramforge API: ${e.message}`);
  });
  server.on('clientError', answerClientError);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/v1`,
    port,
    host,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
