// Structured output on a real `ramforge serve --api` (the built CLI, a real worker, a synthetic
// model with random weights): with a JSON schema the grammar makes even random weights write JSON
// that parses and validates, and ends it (the schema's grammar is bounded, so the answer stops
// with the end of text, not the token limit), on one sequence and on batched ones, through the
// official openai and ollama clients; llama-server's `grammar` is honoured exactly; a grammar
// llama.cpp rejects is a 400 and the server serves on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import OpenAI from 'openai';
import { Ollama } from 'ollama';
import { serveApi, stopAllServed, synthModel, type Served } from './serve-api.test-util.js';

let dir = '';
let solo: Served;
let batched: Served;
/** With a draft model (the model itself): speculative decoding, which takes no grammar. */
let drafted: Served;

/** Every field bounded: the grammar admits only finitely many texts, so it must end. */
const SCHEMA = {
  type: 'object',
  properties: {
    answer: { type: 'string', enum: ['yes', 'no', 'maybe'] },
    count: { type: 'integer', minimum: 0, maximum: 99 },
    ok: { type: 'boolean' },
    tag: { type: 'string', maxLength: 6 },
    note: { type: ['string', 'null'], maxLength: 4 },
  },
  required: ['answer', 'count', 'ok', 'tag', 'note'],
  additionalProperties: false,
};
const validate = new Ajv({ strict: false }).compile(SCHEMA);

const openai = (s: Served) => new OpenAI({ baseURL: s.url, apiKey: 'none', maxRetries: 0, timeout: 120_000 });
const responseFormat = { type: 'json_schema' as const, json_schema: { name: 'reply', schema: SCHEMA, strict: true } };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ramforge-serve-structured-'));
  const model = synthModel(dir, 'form.gguf', ['--seed', '11']);
  [solo, batched, drafted] = await Promise.all([
    serveApi(dir, ['--parallel', '1', '--ctx', '2048', model]),
    serveApi(dir, ['--parallel', '2', '--ctx', '2048', model]),
    serveApi(dir, ['--parallel', '1', '--draft', model, model]),
  ]);
}, 180_000);

afterAll(async () => {
  await stopAllServed(dir, [solo, batched, drafted]);
});

describe('structured output on a synthetic model', () => {
  it('json_schema (strict) on chat: random weights answer JSON that validates, ended by the grammar, on one sequence and batched', async () => {
    for (const s of [solo, batched]) {
      const answers = await Promise.all(
        [1, 2, 3].map((seed) =>
          openai(s).chat.completions.create({ model: 'form', messages: [{ role: 'user', content: 'Fill in the form.' }], response_format: responseFormat, max_tokens: 600, temperature: 1, seed }),
        ),
      );
      for (const r of answers) {
        const text = r.choices[0]?.message.content ?? '';
        expect(r.choices[0]?.finish_reason, text).toBe('stop');
        const value: unknown = JSON.parse(text);
        expect(validate(value), `${text}: ${JSON.stringify(validate.errors)}`).toBe(true);
      }
    }
  });

  it('json_schema on text completions, streamed: the pieces join into valid JSON', async () => {
    let text = '';
    let finish: string | null = null;
    for await (const chunk of await openai(solo).completions.create({ model: 'form', prompt: 'Data:', response_format: responseFormat, max_tokens: 600, temperature: 0.9, seed: 4, stream: true } as OpenAI.CompletionCreateParamsStreaming)) {
      text += chunk.choices[0]?.text ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(finish).toBe('stop');
    expect(validate(JSON.parse(text)), text).toBe(true);
  });

  it('json_object: the answer begins an object (it need not end within the limit)', async () => {
    const r = await openai(batched).chat.completions.create({ model: 'form', messages: [{ role: 'user', content: 'JSON please' }], response_format: { type: 'json_object' }, max_tokens: 16, temperature: 1, seed: 3 });
    expect(r.choices[0]?.message.content?.startsWith('{')).toBe(true);
  });

  it("llama-server's grammar holds exactly: an empty language ends at once, a choice of words yields one of them", async () => {
    const c = openai(solo);
    const empty = await c.completions.create({ model: 'form', prompt: 'x', max_tokens: 20, grammar: 'root ::= ""' } as OpenAI.CompletionCreateParamsNonStreaming);
    expect(empty.choices[0]).toMatchObject({ text: '', finish_reason: 'stop' });
    for (const s of [solo, batched]) {
      const r = await openai(s).completions.create({ model: 'form', prompt: 'x', max_tokens: 20, temperature: 1, seed: 8, grammar: 'root ::= ("red" | "green" | "blue") "."' } as OpenAI.CompletionCreateParamsNonStreaming);
      expect(['red.', 'green.', 'blue.']).toContain(r.choices[0]?.text);
    }
  });

  it('a grammar llama.cpp rejects, and a schema the converter cannot follow, are 400s; the server serves on', async () => {
    for (const s of [solo, batched]) {
      for (const grammar of ['root ::= "unterminated', 'root ::= "a" undefined-rule', 'root ::= root "a"', 'start ::= "a"', 'root ::= [a-']) {
        const e = await openai(s)
          .completions.create({ model: 'form', prompt: 'x', max_tokens: 4, grammar } as OpenAI.CompletionCreateParamsNonStreaming)
          .catch((x: unknown) => x);
        expect(e, grammar).toBeInstanceOf(OpenAI.BadRequestError);
        expect(e).toMatchObject({ param: 'grammar', code: 'invalid_grammar' });
      }
      const bad = await openai(s)
        .chat.completions.create({ model: 'form', messages: [{ role: 'user', content: 'x' }], response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'string', pattern: '^a+$' } } } })
        .catch((x: unknown) => x);
      expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
      expect((bad as Error).message).toMatch(/'pattern' is not supported/);
      const after = await openai(s).completions.create({ model: 'form', prompt: 'Once', max_tokens: 3, temperature: 0 });
      expect(after.choices[0]?.text.length).toBeGreaterThan(0);
      expect(s.child.exitCode).toBeNull();
    }
  });

  it('with a draft model loaded, a grammar is a 400 (speculative decoding cannot follow one); plain requests still answer', async () => {
    const e = await openai(drafted)
      .chat.completions.create({ model: 'form', messages: [{ role: 'user', content: 'x' }], response_format: responseFormat, max_tokens: 8 })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OpenAI.BadRequestError);
    expect(e).toMatchObject({ param: 'grammar', code: 'invalid_grammar' });
    expect((e as Error).message).toMatch(/draft model/);
    const r = await openai(drafted).completions.create({ model: 'form', prompt: 'Once', max_tokens: 3, temperature: 0 });
    expect(r.choices[0]?.text.length).toBeGreaterThan(0);
  });

  it("Ollama's format with a schema, through the ollama client", async () => {
    const c = new Ollama({ host: `http://127.0.0.1:${batched.port}` });
    const r = await c.chat({ model: 'form', messages: [{ role: 'user', content: 'Fill in the form.' }], format: SCHEMA, options: { num_predict: 600, seed: 5 }, stream: false });
    expect(r.done_reason).toBe('stop');
    expect(validate(JSON.parse(r.message.content)), r.message.content).toBe(true);
  });
});
