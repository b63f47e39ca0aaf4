// Token biases and the probabilities after sampling through a real `ramforge serve --api` (the
// built CLI, a real worker, a synthetic model this test writes), on llama-server's /completion
// and OpenAI's /v1/completions: `logit_bias` in OpenAI's object form and llama-server's list of
// [token, bias] pairs (ids or texts; false bans), `ignore_eos` (every end-of-generation token at
// -inf, listed in generation_settings.logit_bias), and `post_sampling_probs` (the distribution
// the token was drawn from). One server decodes several sequences (the batch server), one a
// single sequence (one request at a time): both paths sample through the same biases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveApi, stopServed, synthModel, type Served } from './serve-api.test-util.js';

let dir = '';
let batch: Served;
let solo: Served;

interface Prob {
  id: number;
  token: string;
  bytes: number[];
  prob: number;
}
interface Completion {
  content: string;
  tokens_predicted: number;
  stop_type: string;
  completion_probabilities: ({ id: number; top_logprobs: { id: number }[] } & Prob & { top_probs: Prob[] })[];
  generation_settings: { logit_bias: { token: number; bias: number | null }[]; ignore_eos: boolean; post_sampling_probs: boolean };
}

const post = async (s: Served, path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
  const r = await fetch(`http://127.0.0.1:${s.port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, json: (await r.json()) as Record<string, unknown> };
};

async function complete(s: Served, body: Record<string, unknown>): Promise<Completion> {
  const r = await post(s, '/completion', { prompt: 'What is the best book', temperature: 0, n_predict: 6, ...body });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json as unknown as Completion;
}

const ids = (c: Completion) => c.completion_probabilities.map((p) => p.id);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-serve-bias-'));
  const model = synthModel(dir, 'plain.gguf', ['--seed', '7']);
  batch = await serveApi(dir, ['--parallel', '2', model]);
  solo = await serveApi(dir, ['--parallel', '1', model]);
}, 240_000);

afterAll(async () => {
  await stopServed(batch);
  await stopServed(solo);
  if (dir) await rm(dir, { recursive: true, force: true });
});

const SERVERS = [
  ['several sequences', () => batch],
  ['one sequence', () => solo],
] as const;

describe('serve --api: logit_bias', () => {
  it.each(SERVERS)('a banned token is never taken, in every form; a favoured one always is (%s)', async (_n, served) => {
    const s = served();
    const greedy = await complete(s, { n_probs: 1 });
    const first = greedy.completion_probabilities[0]?.id as number;
    expect(greedy.generation_settings.logit_bias).toEqual([]);
    // false bans: -inf, which JSON writes as null (as llama-server's generation_settings shows it).
    const forms: [unknown, number | null][] = [
      [[[first, -100]], -100],
      [[[first, false]], null],
      [{ [String(first)]: -100 }, -100],
    ];
    for (const [logit_bias, shown] of forms) {
      const c = await complete(s, { n_probs: 1, logit_bias });
      expect(ids(c)).not.toContain(first);
      expect(c.generation_settings.logit_bias).toEqual([{ token: first, bias: shown }]);
    }
    // A token nothing would pick, pushed far up: greedy takes it every time.
    const pushed = 1234;
    expect(ids(greedy)).not.toContain(pushed);
    const up = await complete(s, { n_probs: 1, logit_bias: [[pushed, 1000]] });
    expect(ids(up)).toEqual(Array(6).fill(pushed));
  });

  it('a text is biased through every token of it (llama-server: tokenized as plain text), in both forms', async () => {
    const tokenized = await post(solo, '/tokenize', { content: ' the book', add_special: false });
    const tokens = tokenized.json.tokens as number[];
    expect(tokens.length).toBeGreaterThan(0);
    for (const logit_bias of [[[' the book', 1000]], { ' the book': 1000 }]) {
      const c = await complete(solo, { n_probs: 1, logit_bias });
      expect(c.generation_settings.logit_bias).toEqual(tokens.map((token) => ({ token, bias: 1000 })));
      for (const id of ids(c)) expect(tokens).toContain(id);
    }
  });

  it('OpenAI /v1/completions and chat apply it too (no longer named as ignored)', async () => {
    const plain = await post(solo, '/v1/completions', { prompt: 'What is the best book', temperature: 0, max_tokens: 4, logprobs: 1 });
    const r = await fetch(`${solo.url}/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'What is the best book', temperature: 0, max_tokens: 4, logit_bias: { '1234': 100 } }),
    });
    expect(r.headers.get('x-ramforge-ignored')).toBeNull();
    const biased = (await r.json()) as { choices: { text: string }[] };
    // The text of token 1234 four times (/detokenize drops the leading space of a text's first word).
    const four = ((await post(solo, '/detokenize', { tokens: [1234, 1234, 1234, 1234] })).json.content as string).trim();
    expect(biased.choices[0]?.text.trim()).toBe(four);
    expect((plain.json as { choices: { text: string }[] }).choices[0]?.text.trim()).not.toBe(four);
    const chat = await post(solo, '/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }], temperature: 0, max_tokens: 3, logit_bias: { '1234': 100 } });
    const three = ((await post(solo, '/detokenize', { tokens: [1234, 1234, 1234] })).json.content as string).trim();
    expect((chat.json as { choices: { message: { content: string } }[] }).choices[0]?.message.content.trim()).toBe(three);
  });

  it.each([
    ['x', 'logit_bias'],
    [[[5]], 'logit_bias[0]'],
    [[[5, 'much']], 'logit_bias[0]'],
    [{ '5': null }, 'logit_bias.5'],
    [[[-1, 5]], 'logit_bias[0]'],
    [[[5.5, 5]], 'logit_bias[0]'],
  ])('a malformed logit_bias (%j) is a 400 naming it', async (logit_bias, param) => {
    const r = await post(solo, '/completion', { prompt: 'x', n_predict: 1, logit_bias });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: { param } });
  });

  it("a token id outside the model's vocabulary is a 400 that says so", async () => {
    const r = await post(batch, '/completion', { prompt: 'x', n_predict: 1, logit_bias: [[32000, 5]] });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.json)).toMatch(/32000 is not a token id of this model \(0 to 31999\)/);
  });
});

describe('serve --api: ignore_eos', () => {
  it.each(SERVERS)('generation goes on past end-of-text: every end-of-generation token listed at -inf (null) (%s)', async (_n, served) => {
    const s = served();
    const off = await complete(s, { ignore_eos: false });
    expect(off.generation_settings).toMatchObject({ logit_bias: [], ignore_eos: false });
    const on = await complete(s, { ignore_eos: true });
    expect(on.generation_settings.ignore_eos).toBe(true);
    const eog = on.generation_settings.logit_bias;
    expect(eog.length).toBeGreaterThan(0);
    for (const e of eog) expect(e.bias).toBeNull();
    // The end-of-text token favoured: without ignore_eos the answer ends at once; with it, it runs to n_predict.
    const favour = [[eog[0]?.token, 1000]];
    const ends = await complete(s, { logit_bias: favour });
    expect([ends.tokens_predicted, ends.stop_type]).toEqual([0, 'eos']);
    const runs = await complete(s, { logit_bias: favour, ignore_eos: true });
    expect([runs.tokens_predicted, runs.stop_type]).toEqual([6, 'limit']);
    expect(runs.generation_settings.logit_bias).toEqual([{ token: eog[0]?.token, bias: 1000 }, ...eog]);
  });

  it('a wrong type is a 400', async () => {
    const r = await post(solo, '/completion', { prompt: 'x', n_predict: 1, ignore_eos: 'yes' });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: { param: 'ignore_eos' } });
  });
});

describe('serve --api: post_sampling_probs', () => {
  it.each(SERVERS)('probabilities of the distribution the token was drawn from: after top-k, the bias, temperature (%s)', async (_n, served) => {
    const s = served();
    const c = await complete(s, { temperature: 1, top_k: 5, min_p: 0, top_p: 1, n_probs: 10, post_sampling_probs: true, seed: 3 });
    expect(c.generation_settings.post_sampling_probs).toBe(true);
    expect(c.completion_probabilities).toHaveLength(6);
    for (const p of c.completion_probabilities) {
      // top_k 5 leaves five tokens: their probabilities are the whole distribution.
      expect(p.top_probs).toHaveLength(5);
      const probs = p.top_probs.map((t) => t.prob);
      expect(probs).toEqual([...probs].sort((a, b) => b - a));
      expect(probs.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
      for (const t of p.top_probs) expect(Buffer.from(t.bytes).toString('utf8')).toBe(t.token);
      expect(p.prob).toBeCloseTo(p.top_probs.find((t) => t.id === p.id)?.prob ?? -1, 6);
      expect(p).not.toHaveProperty('logprob');
    }
    // The same seed draws the same tokens with the same probabilities.
    const again = await complete(s, { temperature: 1, top_k: 5, min_p: 0, top_p: 1, n_probs: 10, post_sampling_probs: true, seed: 3 });
    expect(again.completion_probabilities).toEqual(c.completion_probabilities);
  });

  it('greedy sampling leaves one token at probability 1; a banned token is no possibility', async () => {
    const greedy = await complete(solo, { n_probs: 3, post_sampling_probs: true });
    for (const p of greedy.completion_probabilities) expect([p.prob, p.top_probs.map((t) => [t.id, t.prob])]).toEqual([1, [[p.id, 1]]]);
    const raw = await complete(solo, { temperature: 1, n_probs: 3, seed: 1 });
    const best = raw.completion_probabilities[0]?.top_logprobs[0]?.id as number;
    const banned = await complete(solo, { temperature: 1, top_k: 40, n_probs: 20, post_sampling_probs: true, seed: 1, logit_bias: [[best, false]] });
    for (const p of banned.completion_probabilities) {
      expect(p.top_probs.map((t) => t.id)).not.toContain(best);
      for (const t of p.top_probs) expect(t.prob).toBeGreaterThan(0);
    }
  });

  it('streamed, each chunk carries its tokens in the same shape', async () => {
    const r = await fetch(`http://127.0.0.1:${batch.port}/completion`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'What is the best book', temperature: 0, n_predict: 4, n_probs: 2, post_sampling_probs: true, stream: true }),
    });
    const events = (await r.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as { completion_probabilities?: Prob[] });
    const all = events.flatMap((e) => e.completion_probabilities ?? []);
    expect(all).toHaveLength(4);
    for (const p of all) expect(p.prob).toBe(1);
  });
});
