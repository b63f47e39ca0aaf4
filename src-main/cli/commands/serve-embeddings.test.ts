// Embeddings on a real `ramforge serve --api` (the built CLI, a real worker, a synthetic model):
// through the official openai client (its default base64 and plain floats), vectors of the
// model's n_embd, unit length, deterministic, different for different texts, the same alone as
// in a batch, and the same through Ollama's /api/embed with the ollama client; generation still
// works beside the embedding context; an input too long for one embedding is a 400.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { Ollama } from 'ollama';
import { serveApi, stopServed, synthModel, type Served } from './serve-api.test-util.js';

let dir = '';
let server: Served;
/** The synthetic preset's hidden size (ramforge synth --preset tiny). */
const N_EMBD = 256;

const client = () => new OpenAI({ baseURL: server.url, apiKey: 'none', maxRetries: 0, timeout: 120_000 });
const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-serve-embeddings-'));
  server = await serveApi(dir, ['--parallel', '2', synthModel(dir, 'vec.gguf', ['--seed', '13'])]);
}, 180_000);

afterAll(async () => {
  await stopServed(server);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('ramforge serve --api embeddings', () => {
  it('the openai client gets unit vectors of n_embd, deterministic, different for different texts', async () => {
    const c = client();
    // The client asks for base64 unless told otherwise, and decodes it.
    const a = await c.embeddings.create({ model: 'vec', input: ['The sea is calm.', 'Stock prices fell sharply.'] });
    expect(a.data).toHaveLength(2);
    expect(a.model).toBe('vec');
    const [x, y] = a.data.map((d) => d.embedding);
    expect(x).toHaveLength(N_EMBD);
    expect(y).toHaveLength(N_EMBD);
    expect(norm(x as number[])).toBeCloseTo(1, 5);
    expect(x).not.toEqual(y);
    expect(a.usage.prompt_tokens).toBeGreaterThan(0);
    // Alone, as floats, and again: the same vector (float32 precision).
    const again = await c.embeddings.create({ model: 'vec', input: 'The sea is calm.', encoding_format: 'float' });
    const z = again.data[0]?.embedding as number[];
    expect(z).toHaveLength(N_EMBD);
    z.forEach((v, i) => expect(v).toBeCloseTo((x as number[])[i] as number, 6));
  });

  it("Ollama's /api/embed through the ollama client gives the same vector, its older /api/embeddings the same direction", async () => {
    const o = await new Ollama({ host: `http://127.0.0.1:${server.port}` }).embed({ model: 'vec', input: 'The sea is calm.' });
    const e = (await client().embeddings.create({ model: 'vec', input: 'The sea is calm.', encoding_format: 'float' })).data[0]?.embedding as number[];
    expect(o.embeddings).toHaveLength(1);
    o.embeddings[0]?.forEach((v, i) => expect(v).toBeCloseTo(e[i] as number, 6));
    // The older route gives the vector unscaled: the same direction.
    const legacy = (await new Ollama({ host: `http://127.0.0.1:${server.port}` }).embeddings({ model: 'vec', prompt: 'The sea is calm.' })).embedding;
    expect(legacy).toHaveLength(N_EMBD);
    const n = norm(legacy);
    legacy.forEach((v, i) => expect(v / n).toBeCloseTo(e[i] as number, 5));
  });

  it("token ids and texts mixed in one sequence, as llama-server takes them: each text tokenized where it stands (BOS only before a leading text); an empty text is embedded", async () => {
    const post = async (input: unknown) => {
      const r = await fetch(`${server.url}/embeddings`, { method: 'POST', body: JSON.stringify({ input, encoding_format: 'float' }) });
      expect(r.status, await r.clone().text()).toBe(200);
      return ((await r.json()) as { data: { embedding: number[] }[]; usage: { prompt_tokens: number } });
    };
    const ids = async (content: string, addSpecial: boolean) => ((await (await fetch(`http://127.0.0.1:${server.port}/tokenize`, { method: 'POST', body: JSON.stringify({ content, add_special: addSpecial }) })).json()) as { tokens: number[] }).tokens;
    const sea = await ids(' the sea', false);
    const mixed = await post([12, 34, ' the sea', 56]);
    const same = await post([12, 34, ...sea, 56]);
    expect(mixed.usage.prompt_tokens).toBe(4 + sea.length - 1);
    mixed.data[0]?.embedding.forEach((v, i) => expect(v).toBeCloseTo(same.data[0]?.embedding[i] as number, 6));
    // A leading text gets the vocabulary's BOS, as alone.
    const lead = await post(['The sea', 7]);
    const leadIds = await post([[...(await ids('The sea', true)), 7]]);
    lead.data[0]?.embedding.forEach((v, i) => expect(v).toBeCloseTo(leadIds.data[0]?.embedding[i] as number, 6));
    // A list of sequences may mix texts, ids and mixed sequences.
    expect((await post(['string1', [12, 34, 56], [12, 'string', 34]])).data).toHaveLength(3);
    expect((await post('')).data[0]?.embedding).toHaveLength(N_EMBD);
    const bad = await fetch(`${server.url}/embeddings`, { method: 'POST', body: JSON.stringify({ input: [12, { text: 'x' }] }) });
    expect(bad.status).toBe(400);
  });

  it('generation works beside it, and an input longer than one embedding takes is a 400', async () => {
    const c = client();
    const [text, vec] = await Promise.all([
      c.completions.create({ model: 'vec', prompt: 'Once', max_tokens: 4, temperature: 0 }),
      c.embeddings.create({ model: 'vec', input: 'word '.repeat(50), encoding_format: 'float' }),
    ]);
    expect(text.choices[0]?.text.length).toBeGreaterThan(0);
    expect(vec.data[0]?.embedding).toHaveLength(N_EMBD);
    const long = await c.embeddings.create({ model: 'vec', input: 'word '.repeat(2000) }).catch((e: unknown) => e);
    expect(long).toBeInstanceOf(OpenAI.BadRequestError);
    expect((long as Error).message).toMatch(/embeddings take at most 512/);
    expect(server.child.exitCode).toBeNull();
  });
});
