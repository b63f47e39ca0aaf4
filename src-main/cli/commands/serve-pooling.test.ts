// `serve --pooling none` (llama-server's --pooling none) on a real `ramforge serve --api` (the
// built CLI, a real worker, a synthetic model): llama-server's /embeddings gives a vector per
// token of each text, unscaled, whose mean is the text's mean-pooled embedding (Ollama's older
// /api/embeddings gives that unscaled from a server with the default pooling on the same file);
// OpenAI's and Ollama's routes, whose shapes hold one vector per text, answer 400 as
// llama-server's OpenAI route does; a value other than mean or none is a usage error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveApi, stopAllServed, synthModel, type Served } from './serve-api.test-util.js';
import { runCli } from '../built-cli.test-util.js';

let dir = '';
let none: Served;
let mean: Served;
/** The synthetic preset's hidden size (ramforge synth --preset tiny). */
const N_EMBD = 256;

const post = async (s: Served, path: string, body: unknown): Promise<{ status: number; json: unknown }> => {
  const r = await fetch(`http://127.0.0.1:${s.port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, json: await r.json() };
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-serve-pooling-'));
  const model = synthModel(dir, 'vec.gguf', ['--seed', '13']);
  [none, mean] = await Promise.all([serveApi(dir, ['--parallel', '1', '--pooling', 'none', model]), serveApi(dir, ['--parallel', '1', model])]);
}, 180_000);

afterAll(async () => {
  await stopAllServed(dir, [none, mean]);
});

describe('serve --api --pooling none', () => {
  it("POST /embeddings: a vector per token (BOS included), whose mean is the text's mean-pooled embedding", async () => {
    const text = 'hello hello hello';
    const r = await post(none, '/embeddings', { input: [text, 'The sea is calm.'] });
    expect(r.status).toBe(200);
    const out = r.json as { index: number; embedding: number[][] }[];
    expect(out.map((o) => o.index)).toEqual([0, 1]);
    const tokens = ((await post(none, '/tokenize', { content: text, add_special: true })).json as { tokens: number[] }).tokens;
    const vectors = out[0]?.embedding ?? [];
    expect(vectors).toHaveLength(tokens.length);
    for (const v of vectors) expect(v).toHaveLength(N_EMBD);
    expect(vectors[0]).not.toEqual(vectors[1]);
    // Not scaled to unit length (as llama-server leaves them).
    expect(vectors.some((v) => Math.abs(Math.hypot(...v) - 1) > 1e-3)).toBe(true);
    const pooled = ((await post(mean, '/api/embeddings', { model: 'vec', prompt: text })).json as { embedding: number[] }).embedding;
    expect(pooled).toHaveLength(N_EMBD);
    pooled.forEach((x, i) => expect(vectors.reduce((s, v) => s + (v[i] ?? NaN), 0) / vectors.length).toBeCloseTo(x, 4));
  });

  it("OpenAI's /v1/embeddings and Ollama's routes answer 400 (one vector per text in their shapes); the default pooling answers them", async () => {
    const oai = await post(none, '/v1/embeddings', { input: 'hello hello hello' });
    expect(oai.status).toBe(400);
    expect(JSON.stringify(oai.json)).toMatch(/Pooling type 'none' is not OAI compatible/);
    expect((await post(none, '/api/embed', { model: 'vec', input: 'hi' })).status).toBe(400);
    expect((await post(mean, '/v1/embeddings', { input: 'hello hello hello' })).status).toBe(200);
    // Without pooling none, /embeddings keeps one vector per text (OpenAI's shape).
    expect(((await post(mean, '/embeddings', { input: 'hi' })).json as { object: string }).object).toBe('list');
  });

  it('a value other than mean or none is a usage error, and --pooling needs --api', () => {
    const bad = runCli(['serve', '--api', '--pooling', 'cls', join(dir, 'vec.gguf')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--pooling must be mean or none/);
    const alone = runCli(['serve', '--pooling', 'none', join(dir, 'vec.gguf')]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/--pooling .* needs --api/);
  });
});
