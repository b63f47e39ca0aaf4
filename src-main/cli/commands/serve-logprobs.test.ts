// Log-probabilities and fill-in-the-middle through a real `ramforge serve --api` (the built CLI,
// a real worker, synthetic models this test writes), on every route that has them: OpenAI chat
// (`logprobs`, `top_logprobs`) and completions (`logprobs`, `echo` with `max_tokens` 0 as
// lm-eval-harness scores a prompt), llama-server's /completion (`n_probs`) and /infill, Ollama's
// /api/generate and /api/chat, streamed and not. One server decodes several sequences (the
// batch server), one a single sequence (one request at a time): both paths report the same
// numbers. Greedy sampling, so the token taken is the most likely one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { serveApi, stopServed, synthModel, type Served } from './serve-api.test-util.js';

let dir = '';
/** StarCoder's vocabulary: llama.cpp finds its FIM tokens (<fim_prefix>, <fim_suffix>, <fim_middle>). */
let fim: Served;
/** The default (Llama SentencePiece) vocabulary, which has none; one sequence. */
let plain: Served;

interface Alt {
  token: string;
  logprob: number;
  bytes: number[];
}
interface Entry extends Alt {
  top_logprobs: Alt[];
}

const post = async (s: Served, path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
  const r = await fetch(`http://127.0.0.1:${s.port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
};

/** The JSON objects of a stream: server-sent events (`data: …`) or NDJSON lines. */
async function streamed(s: Served, path: string, body: unknown): Promise<Record<string, unknown>[]> {
  const r = await fetch(`http://127.0.0.1:${s.port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(r.status).toBe(200);
  return (await r.text())
    .split('\n')
    .map((l) => l.replace(/^data: /, '').trim())
    .filter((l) => l !== '' && l !== '[DONE]')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Each entry's alternatives are sorted, are probabilities (their exp sums to at most 1), and the greedy token is the first. */
function expectGreedyEntries(entries: Entry[], n: number): void {
  expect(entries.length).toBeGreaterThan(0);
  for (const e of entries) {
    expect(e.top_logprobs).toHaveLength(n);
    const lps = e.top_logprobs.map((t) => t.logprob);
    expect(lps).toEqual([...lps].sort((a, b) => b - a));
    expect(lps.reduce((s, l) => s + Math.exp(l), 0)).toBeLessThanOrEqual(1 + 1e-6);
    expect(e.logprob).toBeLessThanOrEqual(0);
    if (n > 0) expect([e.logprob, e.bytes]).toEqual([e.top_logprobs[0]?.logprob, e.top_logprobs[0]?.bytes]);
    expect(Buffer.from(e.bytes).toString('utf8')).toBe(e.token);
  }
}

const textOf = (entries: { bytes: number[] }[]) => Buffer.concat(entries.map((e) => Buffer.from(e.bytes))).toString('utf8');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-serve-logprobs-'));
  fim = await serveApi(dir, ['--parallel', '2', synthModel(dir, 'coder.gguf', ['--vocab', 'starcoder', '--seed', '7'])]);
  plain = await serveApi(dir, ['--parallel', '1', synthModel(dir, 'plain.gguf', ['--seed', '7'])]);
}, 240_000);

afterAll(async () => {
  await stopServed(fim);
  await stopServed(plain);
  if (dir) await rm(dir, { recursive: true, force: true });
});

const CHAT = { model: 'x', messages: [{ role: 'user' as const, content: 'Write me a poem' }], temperature: 0, max_tokens: 6 };

describe('serve --api: log-probabilities', () => {
  it.each([
    ['several sequences', () => fim],
    ['one sequence', () => plain],
  ])('chat (%s, the openai client): one entry per token, the greedy token the most likely, top_logprobs sorted; streamed the same', async (_name, served) => {
    const openai = new OpenAI({ baseURL: served().url, apiKey: 'none', maxRetries: 0 });
    const r = await openai.chat.completions.create({ ...CHAT, logprobs: true, top_logprobs: 4 });
    const content = r.choices[0]?.logprobs?.content as Entry[];
    expect(content).toHaveLength(r.usage?.completion_tokens ?? -1);
    expectGreedyEntries(content, 4);
    expect(textOf(content)).toBe(r.choices[0]?.message.content);
    const chunks = await openai.chat.completions.create({ ...CHAT, logprobs: true, top_logprobs: 4, stream: true });
    const streamedEntries: Entry[] = [];
    for await (const c of chunks) streamedEntries.push(...((c.choices[0]?.logprobs?.content ?? []) as Entry[]));
    expect(streamedEntries.map((e) => e.token)).toEqual(content.map((e) => e.token));
    streamedEntries.forEach((e, i) => expect(e.logprob).toBeCloseTo(content[i]?.logprob as number, 4));
    // Without logprobs asked, none come.
    expect((await openai.chat.completions.create(CHAT)).choices[0]?.logprobs).toBeNull();
  });

  it('completions: tokens, token_logprobs (the max of each top_logprobs), text_offset from the prompt\'s end; echo with max_tokens 0 scores the prompt (first null)', async () => {
    const openai = new OpenAI({ baseURL: fim.url, apiKey: 'none', maxRetries: 0 });
    const prompt = 'def fibonacci(n):';
    const r = await openai.completions.create({ model: 'x', prompt, max_tokens: 5, temperature: 0, logprobs: 3 });
    const lp = r.choices[0]?.logprobs as { tokens: string[]; token_logprobs: number[]; top_logprobs: Record<string, number>[]; text_offset: number[] };
    expect(lp.tokens).toHaveLength(r.usage?.completion_tokens ?? -1);
    expect(lp.tokens.join('')).toBe(r.choices[0]?.text);
    lp.top_logprobs.forEach((top, i) => {
      expect(Object.keys(top).length).toBeLessThanOrEqual(3);
      expect(lp.token_logprobs[i]).toBe(Math.max(...Object.values(top)));
    });
    expect(lp.text_offset[0]).toBe(prompt.length);
    lp.text_offset.slice(1).forEach((o, i) => expect(o).toBe((lp.text_offset[i] as number) + (lp.tokens[i] as string).length));

    const scored = await openai.completions.create({ model: 'x', prompt, max_tokens: 0, echo: true, logprobs: 0 });
    const echo = scored.choices[0]?.logprobs as typeof lp;
    expect(scored.choices[0]?.text).toBe(prompt);
    expect(echo.tokens).toHaveLength(scored.usage?.prompt_tokens ?? -1);
    expect(scored.usage?.completion_tokens).toBe(0);
    expect(echo.token_logprobs[0]).toBeNull();
    expect(echo.tokens.join('')).toBe(prompt);
    for (const l of echo.token_logprobs.slice(1)) expect(l).toBeLessThan(0);
    // The prompt scored, then one token: the same prompt numbers, and the token's as generated without echo.
    const plusOne = (await post(fim, '/v1/completions', { prompt, max_tokens: 1, echo: true, logprobs: 3, temperature: 0 })).json as { choices: { logprobs: typeof lp }[] };
    const both = plusOne.choices[0]?.logprobs as typeof lp;
    expect(both.tokens).toEqual([...echo.tokens, lp.tokens[0]]);
    echo.token_logprobs.slice(1).forEach((l, i) => expect(both.token_logprobs[i + 1]).toBeCloseTo(l, 4));
    expect(both.token_logprobs.at(-1)).toBeCloseTo(lp.token_logprobs[0] as number, 4);
  });

  it('/completion n_probs: completion_probabilities (id, token, bytes, logprob, top_logprobs), streamed one per token', async () => {
    const body = { prompt: 'Once upon a time', n_predict: 5, temperature: 0, n_probs: 3 };
    const { status, json } = await post(fim, '/completion', body);
    expect(status).toBe(200);
    const probs = json.completion_probabilities as (Entry & { id: number; top_logprobs: (Alt & { id: number })[] })[];
    expect(probs).toHaveLength(json.tokens_predicted as number);
    expectGreedyEntries(probs, 3);
    for (const p of probs) expect(p.id).toBe(p.top_logprobs[0]?.id);
    expect(textOf(probs)).toBe(json.content);
    const events = await streamed(fim, '/completion', { ...body, stream: true });
    const got = events.flatMap((e) => (e.completion_probabilities ?? []) as Entry[]);
    expect(got.map((e) => e.token)).toEqual(probs.map((p) => p.token));
  });

  it('Ollama /api/generate and /api/chat: logprobs with top_logprobs, streamed and not', async () => {
    const gen = { model: 'x', prompt: 'Once upon a time', raw: true, stream: false, logprobs: true, top_logprobs: 2, options: { temperature: 0, num_predict: 4 } };
    const { status, json } = await post(fim, '/api/generate', gen);
    expect(status).toBe(200);
    const lps = json.logprobs as Entry[];
    expect(lps).toHaveLength(json.eval_count as number);
    expectGreedyEntries(lps, 2);
    expect(textOf(lps)).toBe(json.response);
    const lines = await streamed(fim, '/api/generate', { ...gen, stream: true });
    expect(lines.flatMap((l) => (l.logprobs ?? []) as Entry[]).map((e) => e.token)).toEqual(lps.map((e) => e.token));
    const chat = await post(fim, '/api/chat', { model: 'x', messages: CHAT.messages, stream: false, logprobs: true, options: { temperature: 0, num_predict: 4 } });
    const chatLps = chat.json.logprobs as Entry[];
    expect(chatLps).toHaveLength(chat.json.eval_count as number);
    expectGreedyEntries(chatLps, 0);
  });
});

describe('serve --api: fill-in-the-middle', () => {
  const prefix = 'def add(a, b):\n    ';
  const suffix = '\n    return c\n';

  it("/infill builds <fim_prefix>prefix<fim_suffix>suffix<fim_middle> from the vocabulary's tokens: the same answer as those tokens sent as a prompt; suffix on /v1/completions and /api/generate the same", async () => {
    const ids = async (content: string) => ((await post(fim, '/tokenize', { content, add_special: false })).json as { tokens: number[] }).tokens;
    const special = async (content: string) => ((await post(fim, '/tokenize', { content, add_special: false, parse_special: true })).json as { tokens: number[] }).tokens;
    const [pre, suf, mid] = [await special('<fim_prefix>'), await special('<fim_suffix>'), await special('<fim_middle>')];
    expect([pre, suf, mid].map((t) => t.length)).toEqual([1, 1, 1]);
    const asTokens = [...pre, ...(await ids(prefix)), ...suf, ...(await ids(suffix)), ...mid];
    const byTokens = await post(fim, '/completion', { prompt: asTokens, n_predict: 6, temperature: 0 });
    const infill = await post(fim, '/infill', { input_prefix: prefix, input_suffix: suffix, n_predict: 6, temperature: 0 });
    expect(infill.status).toBe(200);
    expect(infill.json.tokens_evaluated).toBe(asTokens.length);
    expect(infill.json.content).toBe(byTokens.json.content);
    // A plain prompt is not the same request: the FIM tokens change what the model sees.
    const plainText = await post(fim, '/completion', { prompt: prefix + suffix, n_predict: 6, temperature: 0 });
    expect(plainText.json.tokens_evaluated).not.toBe(asTokens.length);

    const openai = new OpenAI({ baseURL: fim.url, apiKey: 'none', maxRetries: 0 });
    const v1 = await openai.completions.create({ model: 'x', prompt: prefix, suffix, max_tokens: 6, temperature: 0 });
    expect(v1.choices[0]?.text).toBe(infill.json.content);
    expect(v1.usage?.prompt_tokens).toBe(asTokens.length);
    const ollama = await post(fim, '/api/generate', { model: 'x', prompt: prefix, suffix, stream: false, options: { temperature: 0, num_predict: 6 } });
    expect(ollama.json.response).toBe(infill.json.content);
  });

  it("/infill's input_extra comes before the prefix; malformed parts are a 400", async () => {
    const withExtra = await post(fim, '/infill', { input_prefix: prefix, input_suffix: suffix, input_extra: [{ filename: 'util.py', text: 'x = 1\n' }], n_predict: 2, temperature: 0 });
    const without = await post(fim, '/infill', { input_prefix: prefix, input_suffix: suffix, n_predict: 2, temperature: 0 });
    expect(withExtra.json.tokens_evaluated as number).toBeGreaterThan(without.json.tokens_evaluated as number);
    expect((await post(fim, '/infill', { input_suffix: suffix })).status).toBe(400);
    expect((await post(fim, '/infill', { input_prefix: prefix, input_suffix: suffix, input_extra: [{ filename: 'a' }] })).status).toBe(400);
  });

  it("a model whose vocabulary has no FIM tokens: 400 in llama-server's words on every route", async () => {
    const want = 'Infill is not supported by this model: prefix token is missing. suffix token is missing. middle token is missing.';
    const answers = [
      await post(plain, '/infill', { input_prefix: prefix, input_suffix: suffix, n_predict: 2 }),
      await post(plain, '/v1/completions', { prompt: prefix, suffix, max_tokens: 2 }),
      await post(plain, '/api/generate', { model: 'x', prompt: prefix, suffix, stream: false }),
    ];
    for (const a of answers) {
      expect(a.status).toBe(400);
      expect(JSON.stringify(a.json)).toContain(want);
    }
  });
});
