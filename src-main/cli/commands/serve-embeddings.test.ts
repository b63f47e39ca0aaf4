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
