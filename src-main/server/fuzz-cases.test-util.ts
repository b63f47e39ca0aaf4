// A seeded fuzzer for the browser-mode server, shared by the in-process test and the one against
// a real `ramforge serve` child: malformed request lines, targets and headers, upgrade requests
// (with the acceptance each one should get), raw WebSocket frames, and API messages of wrong
// types and sizes. Loopback only. Every case records what came back; the tests assert on it.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type Socket } from 'node:net';
import { WebSocket } from 'ws';
import { API_METHODS } from '../shared/api.js';
import { mulberry32 as rng, pick, type Rand } from '../shared/seeded-random.js';

const chance = (r: Rand, p: number): boolean => r() < p;
const int = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
function bytes(r: Rand, n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = Math.floor(r() * 256);
  return b;
}

export interface Target {
  port: number;
  /** A credential the server accepts. */
  credential: string;
}

export interface Outcome {
  kind: string;
  detail: string;
  /** First HTTP status line's code, or null. */
  status: number | null;
  /** The server closed the connection. */
  closed: boolean;
  /** Something the test must fail on (a 5xx, a wrong acceptance, an unanswered request). */
  problem: string | null;
}

/**
 * How long the first byte of an answer may take where one is due (generous: the machine may be
 * busy), where the server may rightly wait for more (a body still to come), and how long a
 * quiet connection is watched after the last byte.
 */
const ANSWER_DUE_MS = 5000;
const ANSWER_MAYBE_MS = 600;
const IDLE_MS = 400;

/**
 * Sends bytes and reads until the server closes, `done(bytes)` says the answer is complete, no
 * answer came in FIRST_ANSWER_MS, or the connection stayed quiet IDLE_MS after the last byte.
 */
function exchangeRaw(port: number, chunks: (Buffer | string)[], done: (b: Buffer) => boolean, firstMs: number): Promise<{ data: Buffer; closed: boolean }> {
  return new Promise((resolve) => {
    const s: Socket = connect(port, '127.0.0.1');
    const got: Buffer[] = [];
    let closed = false;
    let finished = false;
    const finish = (): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      s.destroy();
      resolve({ data: Buffer.concat(got), closed });
    };
    let timer = setTimeout(finish, firstMs);
    s.on('error', () => {});
    s.on('data', (c: Buffer) => {
      got.push(c);
      if (done(Buffer.concat(got))) return finish();
      clearTimeout(timer);
      timer = setTimeout(finish, IDLE_MS);
    });
    s.on('close', () => {
      closed = true;
      finish();
    });
    s.on('connect', () => {
      for (const c of chunks) if (!s.destroyed) s.write(c);
    });
  });
}

const statusOf = (b: Buffer): number | null => {
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(b.toString('latin1', 0, 64));
  return m ? Number(m[1]) : null;
};
/** A full response head arrived (we never need the body to judge). */
const haveHead = (b: Buffer): boolean => b.includes('\r\n\r\n');

// ---------------------------------------------------------------- HTTP request lines and headers

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'CONNECT', 'PRI', 'G\u0000T', 'get', 'X'.repeat(300), '', ' GET'];
const TARGETS = [
  '/',
  '//',
  '///',
  '//:99999',
  '//a:b@c/',
  '/api',
  '/login',
  '/upload?name=..%2f..%2fx',
  '/upload?name=%ff%fe',
  '/%',
  '/%00',
  '/%E0%A4%A',
  '/assets/../../../../etc/passwd',
  '/..%2f..%2fetc%2fpasswd',
  '/\u00e9\u4e2d',
  '*',
  'http://evil.example/',
  'http://127.0.0.1/',
  '?',
  '',
  '/a?b=%zz&&&==',
  '/index.html',
  '/x.html',
  '/assets/a.js',
];
const VERSIONS = ['HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9', 'HTTP/1.1 extra', 'http/1.1', 'HTTPS/1.1', ''];

function hostHeaders(r: Rand, port: number): string[] {
  return pick(r, [
    [`Host: 127.0.0.1:${port}`],
    [`Host: localhost:${port}`],
    ['Host: evil.example'],
    [`Host: 127.0.0.1:${port + 1}`],
    [],
    [`Host: 127.0.0.1:${port}`, 'Host: evil.example'],
    ['Host: '],
  ]);
}

function extraHeaders(r: Rand, t: Target): string[] {
  const h: string[] = [];
  const add = (p: number, line: () => string): void => void (chance(r, p) && h.push(line()));
  add(0.4, () => `Origin: ${pick(r, [`http://127.0.0.1:${t.port}`, 'http://evil.example', 'null', `http://127.0.0.1:${t.port + 1}`, ''])}`);
  add(0.3, () => `Content-Length: ${pick(r, ['0', '5', '-1', '1e3', '99999999999999999999', ' 5', '5, 6', 'abc', String(int(r, 0, 3000))])}`);
  add(0.08, () => `Transfer-Encoding: ${pick(r, ['chunked', 'gzip, chunked', 'identity', 'chunked, chunked', 'x'])}`);
  add(0.3, () => `Authorization: ${pick(r, [`Bearer ${t.credential}`, 'Bearer x', 'Basic Zm9vOmJhcg==', 'Bearer ' + 'a'.repeat(5000), 'Bearer'])}`);
  add(0.1, () => `Cookie: ramforge_token_${t.port}=${t.credential}`);
  add(0.05, () => `X-Long: ${'a'.repeat(pick(r, [100, 9000, 20000]))}`);
  add(0.04, () => `Bad\u0001Header: x`);
  add(0.04, () => `Space Name: x`);
  add(0.02, () => 'NoColon');
  add(0.1, () => `Connection: ${pick(r, ['close', 'keep-alive', 'Upgrade', 'x'])}`);
  add(0.05, () => `Expect: 100-continue`);
  return h;
}

async function httpCase(r: Rand, t: Target): Promise<Outcome> {
  // Mostly well-formed enough to reach our handlers, with the hostile parts where they look.
  const method = chance(r, 0.75) ? pick(r, ['GET', 'HEAD', 'POST', 'PUT']) : pick(r, METHODS);
  const target = chance(r, 0.1) ? '/' + 'a'.repeat(int(r, 100, 20000)) : pick(r, TARGETS);
  const version = chance(r, 0.8) ? 'HTTP/1.1' : pick(r, VERSIONS);
  const host = chance(r, 0.7) ? [`Host: 127.0.0.1:${t.port}`] : hostHeaders(r, t.port);
  const headers = [...host, ...extraHeaders(r, t)];
  if (!headers.some((x) => /^connection:/i.test(x))) headers.push('Connection: close');
  const head = `${method} ${target} ${version}\r\n${headers.join('\r\n')}\r\n\r\n`;
  // A body mostly where a length was declared (else it is parsed as the next request).
  const declared = headers.some((x) => /^(content-length|transfer-encoding):/i.test(x));
  const body = chance(r, declared ? 0.8 : 0.05) ? [bytes(r, int(r, 0, 2000))] : [];
  const lineEnd = chance(r, 0.05) ? head.replace(/\r\n/g, '\n') : head;
  const { data, closed } = await exchangeRaw(t.port, [lineEnd, ...body], haveHead, ANSWER_MAYBE_MS);
  const status = statusOf(data);
  const detail = JSON.stringify(lineEnd.slice(0, 160));
  // A valid GET of the renderer may be a 200; nothing may ever be a 5xx or a non-HTTP answer.
  const problem = status !== null && status >= 500 ? `a ${status}` : data.length > 0 && status === null ? 'an answer that is not HTTP' : null;
  return { kind: 'http', detail, status, closed, problem };
}

// ---------------------------------------------------------------- upgrade requests

const KEY = 'dGhlIHNhbXBsZSBub25jZQ==';

async function upgradeCase(r: Rand, t: Target): Promise<Outcome> {
  const good = {
    path: chance(r, 0.75),
    host: chance(r, 0.85),
    origin: chance(r, 0.8),
    credential: chance(r, 0.75),
    key: chance(r, 0.9),
    version: chance(r, 0.9),
    protocol: chance(r, 0.9),
  };
  const path = good.path ? pick(r, ['/api', '/api?x=1']) : pick(r, ['//', '///', '//:99999', '/ap', '/api/', '/API', '*', '/%', '/api%00', 'http://127.0.0.1/api']);
  const lines = [`GET ${path} HTTP/1.1`];
  if (good.host) lines.push(`Host: ${pick(r, [`127.0.0.1:${t.port}`, `localhost:${t.port}`])}`);
  else lines.push(...pick(r, [['Host: evil.example'], [], [`Host: 127.0.0.1:${t.port + 1}`]]));
  lines.push('Upgrade: websocket', 'Connection: Upgrade');
  if (good.origin) lines.push(`Origin: http://127.0.0.1:${t.port}`);
  else lines.push(...pick(r, [['Origin: http://evil.example'], [], ['Origin: null'], [`Origin: http://127.0.0.1:${t.port}`, 'Origin: http://evil.example']]));
  lines.push(good.key ? `Sec-WebSocket-Key: ${KEY}` : pick(r, ['Sec-WebSocket-Key: short', 'Sec-WebSocket-Key: ', 'X-No-Key: 1']));
  lines.push(good.version ? 'Sec-WebSocket-Version: 13' : pick(r, ['Sec-WebSocket-Version: 12', 'Sec-WebSocket-Version: x', 'X-No-Version: 1']));
  const auth = good.credential ? `ramforge.auth.${t.credential}` : pick(r, ['ramforge.auth.wrong', 'ramforge.auth.', `ramforge.auth.${t.credential}x`, 'other']);
  const protos = [good.protocol ? 'ramforge.v1' : 'other.v1', auth].filter(() => true);
  lines.push(`Sec-WebSocket-Protocol: ${chance(r, 0.5) ? protos.join(', ') : protos.reverse().join(',')}`);
  const { data, closed } = await exchangeRaw(t.port, [lines.join('\r\n') + '\r\n\r\n'], haveHead, ANSWER_DUE_MS);
  const status = statusOf(data);
  const shouldOpen = good.path && good.host && good.origin && good.credential && good.key && good.version && good.protocol;
  let problem: string | null = null;
  if (status !== null && status >= 500) problem = `a ${status}`;
  else if (shouldOpen && status !== 101) problem = `a valid upgrade got ${status}`;
  else if (!shouldOpen && status === 101) problem = 'an invalid upgrade was accepted';
  else if (!shouldOpen && status === null) problem = 'an invalid upgrade got no answer';
  return { kind: 'upgrade', detail: JSON.stringify(good) + ' ' + path, status, closed, problem };
}

// ---------------------------------------------------------------- raw WebSocket frames

function frame(r: Rand): Buffer {
  const opcode = pick(r, [0x0, 0x1, 0x1, 0x1, 0x2, 0x3, 0x7, 0x8, 0x9, 0xa, 0xb, 0xf]);
  const fin = chance(r, 0.85) ? 0x80 : 0;
  const rsv = chance(r, 0.1) ? pick(r, [0x40, 0x20, 0x10]) : 0;
  const masked = chance(r, 0.9);
  let payload: Buffer;
  const k = r();
  if (opcode === 0x1 && k < 0.4) payload = Buffer.from(pick(r, ['{"id":1,"method":"getState","params":[]}', '{', 'null', '[]', '{"id":-1}', '{"id":1,"method":"__proto__"}']));
  else if (opcode === 0x1 && k < 0.55) payload = Buffer.from([0xc3, 0x28, 0xff, 0xfe]); // invalid UTF-8
  else if (opcode === 0x8 && k < 0.5) payload = pick(r, [Buffer.from([0x03]), Buffer.from([0x03, 0xe8]), Buffer.from([0x00, 0x00]), Buffer.from([0x0b, 0xb8, 0xff]), Buffer.from([0x03, 0xed])]);
  else payload = bytes(r, pick(r, [0, 1, 10, 125, 126, 200, 70_000]));
  // The length field: honest, or a lie (longer or shorter than the payload, or beyond any limit).
  let len: bigint = BigInt(payload.length);
  if (chance(r, 0.15)) len = pick(r, [0n, 1n, 126n, 65_536n, 17n * 1024n * 1024n, 2n ** 63n - 1n, 2n ** 64n - 1n]);
  const head: number[] = [fin | rsv | opcode];
  const m = masked ? 0x80 : 0;
  let ext = Buffer.alloc(0);
  if (len < 126n) head.push(m | Number(len));
  else if (len < 65_536n && chance(r, 0.8)) {
    head.push(m | 126);
    ext = Buffer.alloc(2);
    ext.writeUInt16BE(Number(len));
  } else {
    head.push(m | 127);
    ext = Buffer.alloc(8);
    ext.writeBigUInt64BE(len);
  }
  const mask = masked ? bytes(r, 4) : Buffer.alloc(0);
  const body = Buffer.from(payload);
  if (masked) for (let i = 0; i < body.length; i++) body[i] = (body[i] as number) ^ (mask[i % 4] as number);
  return Buffer.concat([Buffer.from(head), ext, mask, body]);
}

async function frameCase(r: Rand, t: Target): Promise<Outcome> {
  const hs = [
    'GET /api HTTP/1.1',
    `Host: 127.0.0.1:${t.port}`,
    'Upgrade: websocket',
    'Connection: Upgrade',
    `Origin: http://127.0.0.1:${t.port}`,
    `Sec-WebSocket-Key: ${KEY}`,
    'Sec-WebSocket-Version: 13',
    `Sec-WebSocket-Protocol: ramforge.v1, ramforge.auth.${t.credential}`,
  ].join('\r\n');
  const frames = Array.from({ length: int(r, 1, 4) }, () => frame(r));
  // Sometimes split the bytes at random points, as TCP may.
  const all = Buffer.concat(frames);
  const parts: Buffer[] = [];
  if (chance(r, 0.3) && all.length > 2) {
    const cut = int(r, 1, all.length - 1);
    parts.push(all.subarray(0, cut), all.subarray(cut));
  } else parts.push(all);
  const { data, closed } = await exchangeRaw(t.port, [hs + '\r\n\r\n', ...parts], () => false, ANSWER_DUE_MS);
  const status = statusOf(data);
  const problem = status !== 101 ? `the handshake got ${status}` : null;
  return { kind: 'frame', detail: all.subarray(0, 24).toString('hex'), status, closed, problem };
}

// ---------------------------------------------------------------- API messages of wrong types and sizes

/** Methods that start processes or load models when their arguments are valid: given only invalid ones against a real server. */
const SPAWNING = new Set(['inspect', 'inspectUpload', 'plan', 'discoverModels', 'pullModel', 'load', 'comparePolicies', 'restart']);

function junk(r: Rand, depth = 0): unknown {
  const k = int(r, 0, depth > 2 ? 7 : 11);
  switch (k) {
    case 0:
      return null;
    case 1:
      return pick(r, [0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308, 4294967296, 2_000_000_000]);
    case 2:
      return pick(r, [true, false]);
    case 3:
      return pick(r, ['', 'x', join(tmpdir(), 'none.gguf'), '-weird.gguf', '../../etc/passwd', '\u0000', '\ud800', 'é'.repeat(50)]);
    case 4:
      return 'y'.repeat(pick(r, [1000, 100_000, 1_000_000]));
    case 5:
      return pick(r, ['__proto__', 'constructor', 'toString']);
    case 6:
      return { role: pick(r, ['user', 'system', 'x']), content: pick(r, ['hi', 5, null]) };
    case 7:
      return [];
    case 8:
      return Array.from({ length: int(r, 0, 5) }, () => junk(r, depth + 1));
    case 9:
      return Object.fromEntries(Array.from({ length: int(r, 0, 5) }, () => [pick(r, ['ctx', 'threads', 'policy', 'ramBytes', 'seed', 'repeatLastN', '__proto__', 'x']), junk(r, depth + 1)]));
    case 10:
      return JSON.parse('['.repeat(2000) + ']'.repeat(2000)) as unknown;
    default:
      return { a: { b: { c: junk(r, depth + 1) } } };
  }
}

interface ApiMessage {
  text: string | Buffer;
  binary: boolean;
  /** The id the server must answer, or null when no answer with an id is due. */
  expectId: number | null;
}

function apiMessage(r: Rand, id: number, safeOnly: boolean): ApiMessage {
  const k = r();
  if (k < 0.05) return { text: bytes(r, int(r, 0, 300)), binary: true, expectId: null };
  if (k < 0.12) return { text: pick(r, ['', '{', 'null', '1', '"x"', '[]', '{"id":"1"}', '{"id":0,"method":"getState"}', 'x'.repeat(10_000)]), binary: false, expectId: null };
  if (k < 0.16) return { text: JSON.stringify({ id, method: 'getState', params: {} }), binary: false, expectId: id };
  const methods = [...API_METHODS, 'onEvent', 'pathForFile', '__proto__', 'constructor', 'hasOwnProperty', 'close', 'emit', 'then', 'x'];
  const method = pick(r, methods);
  let params = Array.from({ length: int(r, 0, 6) }, () => junk(r));
  if (safeOnly && SPAWNING.has(method)) params = [{ notAPath: true }, ...params.slice(1)];
  if (safeOnly && method === 'discoverModels') params = ['not a number'];
  if (safeOnly && method === 'restart') return { text: JSON.stringify({ id, method: 'getState', params: [] }), binary: false, expectId: id };
  return { text: JSON.stringify({ id, method, params }), binary: false, expectId: id };
}

/** Many API messages over a few sockets; every message with an id must get exactly one answer with it. */
async function apiRun(r: Rand, t: Target, n: number, safeOnly: boolean): Promise<Outcome[]> {
  const out: Outcome[] = [];
  const perSocket = 100;
  let id = 1;
  for (let done = 0; done < n; done += perSocket) {
    const count = Math.min(perSocket, n - done);
    const ws = new WebSocket(`ws://127.0.0.1:${t.port}/api`, ['ramforge.v1', `ramforge.auth.${t.credential}`], { headers: { origin: `http://127.0.0.1:${t.port}` } });
    const answers = new Map<number, number>();
    let nullAnswers = 0;
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString()) as { id?: number | null; event?: unknown };
      if (m.event !== undefined) return;
      if (typeof m.id === 'number') answers.set(m.id, (answers.get(m.id) ?? 0) + 1);
      else nullAnswers++;
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const sent: ApiMessage[] = [];
    for (let i = 0; i < count; i++) {
      const m = apiMessage(r, id++, safeOnly);
      sent.push(m);
      ws.send(m.text, { binary: m.binary });
    }
    const due = sent.filter((m) => m.expectId !== null).map((m) => m.expectId as number);
    const t0 = Date.now();
    while (Date.now() - t0 < 10_000 && due.some((i) => !answers.has(i))) await new Promise((res) => setTimeout(res, 20));
    for (const m of sent) {
      const got = m.expectId === null ? null : (answers.get(m.expectId) ?? 0);
      const problem = got === null ? null : got !== 1 ? `request ${m.expectId} got ${got} answers` : null;
      out.push({ kind: 'api', detail: String(m.text).slice(0, 120), status: null, closed: false, problem });
    }
    if (nullAnswers === 0 && sent.some((m) => m.expectId === null)) out.push({ kind: 'api', detail: 'malformed messages', status: null, closed: false, problem: 'no error answer to a malformed message' });
    ws.close();
  }
  // One message over the size limit: the socket is closed (1009), the server goes on.
  const big = new WebSocket(`ws://127.0.0.1:${t.port}/api`, ['ramforge.v1', `ramforge.auth.${t.credential}`], { headers: { origin: `http://127.0.0.1:${t.port}` } });
  const code = await new Promise<number>((resolve) => {
    big.on('error', () => {});
    big.once('open', () => big.send(Buffer.alloc(16 * 1024 * 1024 + 1, 0x20)));
    big.once('close', (c) => resolve(c));
    setTimeout(() => resolve(-1), 10_000);
  });
  out.push({ kind: 'api', detail: '16 MiB + 1 message', status: null, closed: true, problem: code === 1009 ? null : `an oversized message closed with ${code}, not 1009` });
  return out;
}

export interface FuzzCounts {
  http: number;
  upgrade: number;
  frame: number;
  api: number;
}

/** Runs every kind of case, `concurrency` raw connections at a time. */
export async function fuzz(t: Target, seed: number, counts: FuzzCounts, opts: { safeOnly: boolean; concurrency?: number }): Promise<Outcome[]> {
  const r = rng(seed);
  const conc = opts.concurrency ?? 32;
  const jobs: (() => Promise<Outcome>)[] = [];
  for (let i = 0; i < counts.http; i++) {
    const s = r();
    jobs.push(() => httpCase(rng(s * 2 ** 32), t));
  }
  for (let i = 0; i < counts.upgrade; i++) {
    const s = r();
    jobs.push(() => upgradeCase(rng(s * 2 ** 32), t));
  }
  for (let i = 0; i < counts.frame; i++) {
    const s = r();
    jobs.push(() => frameCase(rng(s * 2 ** 32), t));
  }
  const out: Outcome[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: conc }, async () => {
      while (next < jobs.length) {
        const job = jobs[next++] as () => Promise<Outcome>;
        out.push(await job());
      }
    }),
  );
  out.push(...(await apiRun(r, t, counts.api, opts.safeOnly)));
  return out;
}

/** Counts by kind and answer, for the test's log line. */
export function summary(out: Outcome[]): string {
  const by = new Map<string, number>();
  for (const o of out) {
    const key = `${o.kind}:${o.status ?? (o.closed ? 'closed' : 'none')}`;
    by.set(key, (by.get(key) ?? 0) + 1);
  }
  return [...by.entries()].sort().map(([k, v]) => `${k}=${v}`).join(' ');
}
