// POST /v1/embeddings and Ollama's /api/embed over real sockets with the fake backend: the
// vectors normalized in OpenAI's list shape (floats and base64) and Ollama's, the checks of
// every field, and failures as errors in each API's shape.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type RunningApiServer } from './http-server.js';
import { FAKE_MODEL, FakeBackend, crash } from './fake-backend.test-util.js';
import { unavailable } from './errors.js';
import { base64Float32, normalized } from './embeddings-shape.js';

let backend: FakeBackend;
let srv: RunningApiServer;

beforeAll(async () => {
  backend = new FakeBackend();
  srv = await startApiServer({ backend, port: 0 });
});

afterAll(async () => {
  await srv.close();
});

afterEach(() => {
  backend.served = FAKE_MODEL;
  backend.failAfter = null;
});

const post = (p: string, body: unknown) => fetch(`http://127.0.0.1:${srv.port}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('embeddings', () => {
  it('normalizes to unit length; base64 is the little-endian float32 bytes', () => {
    expect(normalized([3, 4])).toEqual([0.6, 0.8]);
    expect(normalized([0, 0])).toEqual([0, 0]);
    const b = Buffer.from(base64Float32([1, -2.5]), 'base64');
    expect([b.readFloatLE(0), b.readFloatLE(4)]).toEqual([1, -2.5]);
  });

  it('/v1/embeddings: one vector per input, in order, unit length, with usage', async () => {
    const r = await post('/v1/embeddings', { model: 'fake', input: ['ab', 'xyz'] });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { object: string; model: string; data: { object: string; index: number; embedding: number[] }[]; usage: unknown };
    expect(body).toMatchObject({ object: 'list', model: 'fake', usage: { prompt_tokens: 5, total_tokens: 5 } });
    expect(body.data.map((d) => [d.object, d.index])).toEqual([['embedding', 0], ['embedding', 1]]);
    expect(body.data[0]?.embedding).toEqual(normalized([2, 97, 2, 0]));
    expect(body.data[1]?.embedding).toEqual(normalized([3, 120, 2, 0]));
    expect(backend.embedded.at(-1)).toEqual(['ab', 'xyz']);
    const one = (await (await post('/v1/embeddings', { model: 'fake.gguf', input: 'ab', encoding_format: 'base64', dimensions: 4 })).json()) as { data: { embedding: string }[] };
    expect(one.data[0]?.embedding).toBe(base64Float32(normalized([2, 97, 2, 0])));
  });

  it('/api/embed: Ollama\'s shape', async () => {
    const r = await post('/api/embed', { model: 'fake:latest', input: 'ab', truncate: false, keep_alive: '5m' });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ model: 'fake:latest', embeddings: [normalized([2, 97, 2, 0])], prompt_eval_count: 2, load_duration: 0 });
  });

  it("Ollama's older /api/embeddings: one prompt, the vector as computed (not scaled), as Ollama gives it", async () => {
    const r = await post('/api/embeddings', { model: 'fake', prompt: 'ab' });
    expect(await r.json()).toEqual({ embedding: [2, 97, 2, 0] });
    const bad = await post('/api/embeddings', { model: 'fake', input: 'ab' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: expect.stringMatching(/'prompt' must be a non-empty string/) });
    expect((await post('/api/embeddings', { model: 'fake', prompt: '' })).status).toBe(400);
  });

  it('refuses malformed requests with a 400 naming the field, in each API\'s shape', async () => {
    const cases: [unknown, string, string][] = [
      [{ model: 'fake' }, 'input', 'missing_required_parameter'],
      [{ model: 'fake', input: [] }, 'input', 'invalid_value'],
      [{ model: 'fake', input: [1, 2.5] }, 'input', 'invalid_type'],
      // Ids and texts mixed in one sequence are llama-server's prompts (serve-embeddings.test.ts); other values are not.
      [{ model: 'fake', input: ['a', { text: 'b' }] }, 'input[1]', 'invalid_type'],
      [{ model: 'fake', input: [3, { text: 'b' }] }, 'input[1]', 'invalid_type'],
      [{ model: 'fake', input: [[]] }, 'input[0]', 'invalid_value'],
      [{ model: 'fake', input: 'a', encoding_format: 'int8' }, 'encoding_format', 'invalid_value'],
      [{ model: 'fake', input: 'a', dimensions: 5 }, 'dimensions', 'invalid_value'],
    ];
    for (const [body, param, code] of cases) {
      const r = await post('/v1/embeddings', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(await r.json()).toMatchObject({ error: { param, code } });
    }
    const o = await post('/api/embed', { model: 'fake', input: 'a', truncate: 'no' });
    expect(o.status).toBe(400);
    expect(await o.json()).toEqual({ error: expect.stringMatching(/truncate/) });
  });

  it('any name is the loaded model, one on disk but not loaded 404, no model 503, the worker failing 500', async () => {
    expect((await post('/v1/embeddings', { model: 'other', input: 'a' })).status).toBe(200);
    backend.onDisk = { other: '/models/other.gguf' };
    expect((await post('/v1/embeddings', { model: 'other', input: 'a' })).status).toBe(404);
    expect((await post('/api/embed', { model: 'other', input: 'a' })).status).toBe(404);
    backend.onDisk = {};
    backend.served = unavailable('no model is loaded', 'model_not_loaded');
    expect((await post('/v1/embeddings', { model: 'fake', input: 'a' })).status).toBe(503);
    backend.served = FAKE_MODEL;
    backend.failAfter = { tokens: 0, error: crash() };
    const r = await post('/v1/embeddings', { model: 'fake', input: 'a' });
    expect(r.status).toBe(500);
    expect(await r.json()).toMatchObject({ error: { code: 'worker_crashed' } });
  });
});
