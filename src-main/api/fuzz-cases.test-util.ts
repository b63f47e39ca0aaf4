// Malformed requests for the API server, seeded: bad JSON, wrong types and out-of-range values,
// unknown fields, bodies of other content types, a 10 MB prompt, huge headers, invalid UTF-8, deep
// nesting, wrong methods and routes, broken request lines, and slow bodies, on OpenAI's routes
// (chat, completions, embeddings, with structured output fields) and Ollama's (chat, generate,
// embed, show). Each is built to be wrong, so each must get a 4xx — but for unknown fields,
// which are accepted and named back in X-Ramforge-Ignored (as llama-server and Ollama accept
// them); sent over raw sockets on loopback, the status line (and that header) is read.
import { connect } from 'node:net';
import { mulberry32 as rng, pick, type Rand } from '../shared/seeded-random.js';

export interface FuzzCase {
  kind: string;
  detail: string;
  /** Sent one after another. */
  chunks: (string | Buffer)[];
  /** Then the client goes quiet, leaving the request unfinished (slow loris). */
  stall?: boolean;
  /** Not necessarily a 4xx: an answer whose X-Ramforge-Ignored header names this field. */
  ignored?: string;
}

export interface FuzzOutcome {
  kind: string;
  detail: string;
  status: number | null;
  /** Anything a test must fail on: no answer, or an answer that is not a 4xx. */
  problem: string | null;
}

const CHAT = '/v1/chat/completions';
const TEXT = '/v1/completions';
const EMBED = '/v1/embeddings';
const O_CHAT = '/api/chat';
const O_GENERATE = '/api/generate';
const O_EMBED = '/api/embed';
const O_SHOW = '/api/show';

function validBody(r: Rand, model: string): { path: string; body: Record<string, unknown> } {
  const options = { num_predict: 2, temperature: 0 };
  return pick(r, [
    { path: CHAT, body: { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2, temperature: 0 } },
    { path: TEXT, body: { model, prompt: 'Once', max_tokens: 2, temperature: 0 } },
    { path: CHAT, body: { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2, temperature: 0 } },
    { path: TEXT, body: { model, prompt: 'Once', max_tokens: 2, temperature: 0 } },
    { path: EMBED, body: { model, input: 'hi' } },
    { path: O_CHAT, body: { model, messages: [{ role: 'user', content: 'hi' }], stream: false, options } },
    { path: O_GENERATE, body: { model, prompt: 'Once', stream: false, options } },
    { path: O_EMBED, body: { model, input: 'hi' } },
    { path: O_SHOW, body: { model } },
  ]);
}

function http(port: number, method: string, path: string, headers: Record<string, string>, body: string | Buffer): (string | Buffer)[] {
  const head = [`${method} ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), 'Connection: close', '', ''].join('\r\n');
  return [head, body];
}

const jsonHeaders = (body: string | Buffer) => ({ 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });

/** Wrong values per parameter; every one is refused whichever endpoint gets it. */
const WRONG: Record<string, unknown[]> = {
  model: [1, true, {}, []],
  max_tokens: ['5', true, {}, [], 1.5, -1, -100, 0, 1e20],
  temperature: ['hot', -1, 3, {}, true, 1e300],
  top_p: [2, -0.1, 'x', []],
  seed: ['x', 1.5, 2 ** 40, -2],
  stop: [5, [1], [''], {}, Array(40).fill('x')],
  n: [129, 0, 'one', 1.5],
  stream: ['yes', 1, {}],
  stream_options: [{ include_usage: true }],
  frequency_penalty: [5, 'x'],
  logit_bias: ['x', 5, [[1]], [[1, 'x']], [['', 1]], { '1': 'x' }, [[-1, 1]]],
  user: [5, {}],
  response_format: ['json', 5, [], { type: 'json' }, { type: 'json_schema' }, { type: 'json_schema', json_schema: [] }, { type: 'json_schema', json_schema: { schema: { type: 'string', pattern: '^a$' } } }, { type: 'json_schema', json_schema: { schema: { type: 'object', properties: { a: {} }, required: ['b'] } } }, { type: 'json_schema', json_schema: { schema: { $ref: '#/$defs/none' } } }, { type: 'json_schema', json_schema: { schema: {}, strict: 'yes' } }, { type: 'json_object', extra: 1 }],
  grammar: [5, {}, [], true],
};
/** Grammars only llama.cpp can tell are wrong (a real worker parses them). */
const WRONG_GBNF: Record<string, unknown[]> = {
  grammar: ['root ::= "unterminated', 'root ::= root "a"', 'start ::= "a"', 'root ::= [a-', 'root ::= "a" undefined-rule', 'root ::= ("a" | '],
};
const WRONG_EMBED: Record<string, unknown[]> = {
  model: [1, true, {}, []],
  // Token ids, an empty text and ids mixed with texts are llama-server's inputs, and valid.
  input: [5, [], [1.5], [-1], [[]], [['a']], [[true]], [true], [null], {}, null, Array(3000).fill('x')],
  encoding_format: ['int8', 1, 'FLOAT'],
  dimensions: [0, -1, 'x', 1.5, 1 << 20],
  user: [5],
};
const WRONG_OPTIONS: unknown[] = ['x', [], 5, { temperature: 'hot' }, { temperature: 5 }, { num_predict: 0 }, { num_ctx: 1e9 }, { mirostat: 'on' }, { typical_p: 'x' }, { stop: [1] }, { stop: [''] }, { seed: 1.5 }, { top_k: -1 }, { num_thread: 'all' }];
const WRONG_FORMAT: unknown[] = ['yaml', 5, [], { type: 'string', pattern: 'x' }, { type: 'number', minimum: 1 }, { allOf: [] }];
const WRONG_OLLAMA: Record<string, unknown[]> = {
  model: [1, true, {}, []],
  options: WRONG_OPTIONS,
  format: WRONG_FORMAT,
  stream: ['yes', 1],
  think: [true, 'high'],
  keep_alive: [{}, []],
  logprobs: ['yes', 1],
  top_logprobs: [21, -1, 'x'],
};
const WRONG_O_CHAT: Record<string, unknown[]> = {
  messages: ['hi', [1], [{}], [{ role: 'tool', content: 'x' }], [{ role: 'user', content: 5 }], [{ role: 'user', content: 'x', images: ['aGk='] }], [{ role: 'user', content: 'x', tool_calls: [{}] }], [{ role: 'x', content: 'y' }]],
  tools: [[{ type: 'function' }]],
};
const WRONG_O_GENERATE: Record<string, unknown[]> = {
  prompt: [5, {}, []],
  context: [[1, 2]],
  template: ['{{ .Prompt }}'],
  raw: ['yes'],
  system: [5],
  images: [['aGk=']],
  suffix: [5, {}],
};
const WRONG_O_EMBED: Record<string, unknown[]> = {
  model: [1, {}],
  input: [5, [], [''], ['a', 3], null],
  truncate: ['no'],
  options: WRONG_OPTIONS,
  dimensions: [0, 'x', 1 << 20],
};
const WRONG_O_SHOW: Record<string, unknown[]> = {
  model: [1, {}, true],
  verbose: ['yes'],
  options: [{ temperature: 'hot' }],
};

function wrongTable(path: string, nativeGrammar: boolean): Record<string, unknown[]> {
  switch (path) {
    case CHAT:
      return { ...WRONG, ...WRONG_CHAT, ...(nativeGrammar ? { grammar: [...(WRONG.grammar as unknown[]), ...(WRONG_GBNF.grammar as unknown[])] } : {}) };
    case TEXT:
      return { ...WRONG, ...WRONG_TEXT, ...(nativeGrammar ? { grammar: [...(WRONG.grammar as unknown[]), ...(WRONG_GBNF.grammar as unknown[])] } : {}) };
    case EMBED:
      return WRONG_EMBED;
    case O_CHAT:
      return { ...WRONG_OLLAMA, ...WRONG_O_CHAT };
    case O_GENERATE:
      return { ...WRONG_OLLAMA, ...WRONG_O_GENERATE };
    case O_EMBED:
      return WRONG_O_EMBED;
    default:
      return WRONG_O_SHOW;
  }
}

/** A field name that is real on another route but not on this one. */
const OTHER_ROUTES_FIELD: Record<string, string> = { [CHAT]: 'prompt', [TEXT]: 'messages', [EMBED]: 'prompt', [O_CHAT]: 'prompt', [O_GENERATE]: 'messages', [O_EMBED]: 'prompt', [O_SHOW]: 'messages' };
const WRONG_CHAT: Record<string, unknown[]> = {
  messages: [
    'hi', [], [1], [{}], [{ role: 'x', content: 'y' }], [{ role: 'user' }], [{ role: 'user', content: 5 }], [{ role: 'tool', content: 'x' }], [{ role: 'user', content: [{ type: 'image_url' }] }], null,
    [{ role: 'tool', content: 'x', tool_call_id: 5 }],
    [{ role: 'user', content: 'x', tool_call_id: 'c1' }],
    [{ role: 'function', content: 'x', name: 'f' }],
    [{ role: 'assistant', content: null, tool_calls: [{}] }],
    [{ role: 'assistant', content: null, tool_calls: 'call' }],
    [{ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: { a: 1 } } }] }],
    [{ role: 'user', content: 'x', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] }],
  ],
  logprobs: ['yes', 1],
  top_logprobs: [21, -1, 'x'],
  tools: [
    [{ type: 'function' }],
    'get_weather',
    { type: 'function', function: { name: 'f' } },
    [null],
    [{ type: 'code_interpreter' }],
    [{ type: 'function', function: { name: 'has space' } }],
    [{ type: 'function', function: { name: 'x'.repeat(65) } }],
    [{ type: 'function', function: { name: 'f', parameters: 'object' } }],
    [{ type: 'function', function: { name: 'f', description: 5 } }],
    [{ type: 'function', function: { name: 'f', colour: 'red' } }],
    [{ type: 'function', function: { name: 'f' }, extra: 1 }],
    [{ type: 'function', function: { name: 'f' } }, { type: 'function', function: { name: 'f' } }],
    Array.from({ length: 129 }, (_, i) => ({ type: 'function', function: { name: `f${i}` } })),
  ],
  tool_choice: ['always', 5, [], 'required', { type: 'function' }, { type: 'function', function: { name: 'nope' } }, { type: 'allowed_tools', allowed_tools: {} }, { function: { name: 'f' } }],
  parallel_tool_calls: ['yes', 1],
  max_completion_tokens: [-1, 'x'],
};
const WRONG_TEXT: Record<string, unknown[]> = {
  prompt: [5, {}, ['a', 3], [1, -2], true, null],
  suffix: [5, {}],
  logprobs: [21, -1, 'x', true],
  best_of: [2],
  echo: ['yes'],
};

/** `nativeGrammar`: the server has a real worker, which refuses grammars llama.cpp cannot parse. */
export function fuzzCases(seed: number, n: number, port: number, model: string, opts: { slow: number; big: number; structured?: number; nativeGrammar?: boolean }): FuzzCase[] {
  const r = rng(seed);
  const out: FuzzCase[] = [];
  // Structured output asked for wrongly, on every route that takes it.
  for (let i = 0; i < (opts.structured ?? 0); i++) {
    const path = pick(r, [CHAT, TEXT, O_CHAT, O_GENERATE]);
    const body = path === CHAT || path === O_CHAT ? { model, messages: [{ role: 'user', content: 'hi' }] } : { model, prompt: 'Once' };
    const table: Record<string, unknown[]> =
      path === O_CHAT || path === O_GENERATE
        ? { format: WRONG_FORMAT }
        : {
            response_format: WRONG.response_format as unknown[],
            grammar: wrongTable(path, opts.nativeGrammar ?? false).grammar as unknown[],
            // Tool fields, malformed, or well-formed for a model whose template has no tool support (these servers' models).
            ...(path === CHAT ? { tools: [...(WRONG_CHAT.tools as unknown[]), [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }]], tool_choice: WRONG_CHAT.tool_choice as unknown[] } : {}),
          };
    const field = pick(r, Object.keys(table));
    const value = pick(r, table[field] as unknown[]);
    const text = JSON.stringify({ ...body, [field]: value, ...(path.startsWith('/api/') ? { stream: false, options: { num_predict: 2 } } : { max_tokens: 2 }) });
    out.push({ kind: 'structured', detail: `${path} ${field}=${JSON.stringify(value).slice(0, 40)}`, chunks: http(port, 'POST', path, jsonHeaders(text), text) });
  }
  const kinds = ['bad-json', 'wrong-type', 'wrong-type', 'wrong-type', 'unknown-field', 'content-type', 'not-object', 'utf8', 'deep', 'route', 'request-line', 'huge-header'];
  for (let i = 0; i < opts.big; i++) {
    const { path, body } = validBody(r, model);
    const big = JSON.stringify({ ...body, ...(path === CHAT ? { messages: [{ role: 'user', content: 'x'.repeat(10 * 1024 * 1024) }] } : { prompt: 'x'.repeat(10 * 1024 * 1024) }) });
    // Half announce their length (refused before reading), half are chunked (cut off while arriving).
    if (i % 2 === 0) out.push({ kind: 'huge-prompt', detail: `${path} 10 MB, Content-Length`, chunks: http(port, 'POST', path, jsonHeaders(big), big) });
    else {
      const head = [`POST ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Content-Type: application/json', 'Transfer-Encoding: chunked', 'Connection: close', '', ''].join('\r\n');
      const pieces = [head];
      for (let at = 0; at < big.length; at += 1 << 20) {
        const c = big.slice(at, at + (1 << 20));
        pieces.push(`${c.length.toString(16)}\r\n${c}\r\n`);
      }
      pieces.push('0\r\n\r\n');
      out.push({ kind: 'huge-prompt', detail: `${path} 10 MB, chunked`, chunks: pieces });
    }
  }
  for (let i = 0; i < opts.slow; i++) {
    const { path, body } = validBody(r, model);
    const text = JSON.stringify(body);
    if (i % 2 === 0) {
      out.push({ kind: 'slow-body', detail: path, stall: true, chunks: http(port, 'POST', path, { ...jsonHeaders(text), 'Content-Length': String(text.length + 50) }, text.slice(0, 10)) });
    } else {
      out.push({ kind: 'slow-headers', detail: path, stall: true, chunks: [`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: appl`] });
    }
  }
  while (out.length < n) {
    const kind = pick(r, kinds);
    const { path, body } = validBody(r, model);
    switch (kind) {
      case 'bad-json': {
        const text = JSON.stringify(body);
        const cut = text.slice(0, 1 + Math.floor(r() * (text.length - 2)));
        const s = r() < 0.5 ? cut : text.replace(':', pick(r, ['', '::', ':}', ' = ']));
        out.push({ kind, detail: s.slice(0, 60), chunks: http(port, 'POST', path, jsonHeaders(s), s) });
        break;
      }
      case 'wrong-type': {
        const table = wrongTable(path, opts.nativeGrammar ?? false);
        const field = pick(r, Object.keys(table));
        const value = pick(r, table[field] as unknown[]);
        const s = JSON.stringify({ ...body, [field]: value });
        out.push({ kind, detail: `${path} ${field}=${JSON.stringify(value).slice(0, 40)}`, chunks: http(port, 'POST', path, jsonHeaders(s), s) });
        break;
      }
      case 'unknown-field': {
        const name = pick(r, ['max_token', 'temprature', 'foo', 'stream_option', 'Model', 'prompt_tokens', `x${Math.floor(r() * 1e6)}`, OTHER_ROUTES_FIELD[path] ?? 'foo']);
        const s = JSON.stringify({ ...body, [name]: pick(r, [1, 'x', null, {}, [], true]) });
        out.push({ kind, detail: `${path} ${name}`, chunks: http(port, 'POST', path, jsonHeaders(s), s), ignored: name });
        break;
      }
      case 'content-type': {
        // A body is JSON when it parses as JSON, whatever the type says: these are the types' own forms.
        const [ct, s] = pick(r, [
          ['text/plain', 'hello'],
          ['application/x-www-form-urlencoded', `model=${model}&prompt=Once`],
          ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="prompt"\r\n\r\nOnce\r\n--x--\r\n'],
          ['application/json; charset=latin1', '{"prompt": caf\u00e9}'],
          [null, 'model=x'],
        ] as [string | null, string][]);
        const headers: Record<string, string> = { 'Content-Length': String(Buffer.byteLength(s)) };
        if (ct !== null) headers['Content-Type'] = ct;
        out.push({ kind, detail: `${path} ${String(ct)}`, chunks: http(port, 'POST', path, headers, s) });
        break;
      }
      case 'not-object': {
        const s = pick(r, ['[]', '"x"', '1', 'null', 'true', '[{"model":"m"}]', '']);
        out.push({ kind, detail: s || '(empty)', chunks: http(port, 'POST', path, jsonHeaders(s), s) });
        break;
      }
      case 'utf8': {
        const b = Buffer.concat([Buffer.from('{"model":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('","prompt":"x"}')]);
        out.push({ kind, detail: path, chunks: http(port, 'POST', path, jsonHeaders(b), b) });
        break;
      }
      case 'deep': {
        const depth = pick(r, [1000, 100_000, 1_000_000]);
        const s = '['.repeat(depth) + ']'.repeat(depth);
        out.push({ kind, detail: `${path} depth ${depth}`, chunks: http(port, 'POST', path, jsonHeaders(s), s) });
        break;
      }
      case 'route': {
        const [method, target] = pick(r, [
          ['PUT', CHAT],
          ['DELETE', TEXT],
          ['GET', CHAT],
          ['POST', '/v1/models'],
          ['GET', '/v1/embeddings'],
          ['GET', O_CHAT],
          ['POST', '/api/tags'],
          ['POST', '/api/pull'],
          ['DELETE', '/api/delete'],
          ['PUT', O_GENERATE],
          ['GET', '/v1/../../etc/passwd'],
          ['GET', '//v1/models'],
          ['POST', '/v2/chat/completions'],
          ['PATCH', CHAT],
        ] as const);
        const s = JSON.stringify(body);
        out.push({ kind, detail: `${method} ${target}`, chunks: http(port, method, target, jsonHeaders(s), s) });
        break;
      }
      case 'request-line': {
        const line = pick(r, ['GARBAGE\r\n\r\n', 'POST\r\n\r\n', `POST ${CHAT} HTTP/9.9\r\n\r\n`, 'GET / HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n', `POST ${CHAT} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: -5\r\n\r\n`, `POST ${CHAT} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n`]);
        out.push({ kind, detail: JSON.stringify(line.slice(0, 40)), chunks: [line] });
        break;
      }
      case 'huge-header': {
        const s = JSON.stringify(body);
        out.push({ kind, detail: `${path} 64 KiB header`, chunks: http(port, 'POST', path, { ...jsonHeaders(s), 'X-Filler': 'a'.repeat(64 * 1024) }, s) });
        break;
      }
    }
  }
  return out;
}

/** Sends one case; the status of the first answer, or null when the server closed without one. */
export function send(port: number, c: FuzzCase, waitMs: number): Promise<FuzzOutcome> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    let got = Buffer.alloc(0);
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      s.destroy();
      const m = /^HTTP\/1\.1 (\d{3})/.exec(got.subarray(0, 20).toString('latin1'));
      const status = m ? Number(m[1]) : null;
      const head = got.toString('latin1').split('\r\n\r\n')[0] ?? '';
      const named = /^x-ramforge-ignored: (.*)$/im.exec(head)?.[1]?.split(',') ?? [];
      const problem =
        status === null ? 'no answer'
        // Accepted and named, whether the request then succeeds or is refused for another reason (a base model's chat).
        : c.ignored !== undefined ? ((status === 200 || (status >= 400 && status <= 499)) && named.includes(c.ignored) ? null : `status ${status}, ignored ${JSON.stringify(named)}`)
        : status < 400 || status > 499 ? `status ${status}`
        : null;
      resolve({ kind: c.kind, detail: c.detail, status, problem });
    };
    const timer = setTimeout(finish, waitMs);
    s.on('error', () => finish());
    s.on('close', () => finish());
    s.on('data', (b: Buffer) => {
      got = Buffer.concat([got, b]);
      if (/^HTTP\/1\.1 \d{3}/.test(got.subarray(0, 20).toString('latin1')) && (c.ignored === undefined || got.includes('\r\n\r\n'))) finish();
    });
    s.on('connect', () => {
      // Written in order; a server that answers early and closes makes the rest fail, which is fine.
      for (const ch of c.chunks) if (!s.destroyed) s.write(ch);
    });
  });
}

/** Runs the cases `parallel` at a time. */
export async function runCases(port: number, cases: FuzzCase[], parallel: number, waitMs: number): Promise<FuzzOutcome[]> {
  const out: FuzzOutcome[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length) {
      const c = cases[next++] as FuzzCase;
      out.push(await send(port, c, waitMs));
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return out;
}

export function summary(out: FuzzOutcome[]): string {
  const by = new Map<string, Map<string, number>>();
  for (const o of out) {
    const m = by.get(o.kind) ?? new Map<string, number>();
    m.set(String(o.status), (m.get(String(o.status)) ?? 0) + 1);
    by.set(o.kind, m);
  }
  return [...by].map(([k, m]) => `${k}: ${[...m].map(([s, n]) => `${n}×${s}`).join(' ')}`).join('; ');
}
