import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.js';
import { JSON_OBJECT_GBNF, jsonSchemaToGbnf } from './json-schema-grammar.js';
import { OLLAMA_DEFAULTS } from './ollama-options.js';
import { validateOllamaChat, validateOllamaGenerate, validateOllamaShow } from './ollama-validate.js';
import { RANDOM_SEED } from './generation-defaults.js';

const chat = (extra: Record<string, unknown> = {}) => ({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...extra });
const gen = (extra: Record<string, unknown> = {}) => ({ model: 'm', prompt: 'Once', ...extra });

function refusal(f: () => unknown): ApiError {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('Ollama request validation', () => {
  it("a minimal chat streams with Ollama's sampling defaults and no limit", () => {
    const r = validateOllamaChat(chat());
    expect(r).toMatchObject({ api: 'chat', model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }], maxTokens: null, stop: [], numCtx: null });
    expect(r.sampling).toEqual({ ...OLLAMA_DEFAULTS, seed: RANDOM_SEED });
  });

  it('honours the options that shape the text, in the worker\'s terms', () => {
    const r = validateOllamaGenerate(
      gen({ stream: false, system: 'be brief', options: { num_predict: 9, temperature: 0, seed: 42, stop: ['END'], num_ctx: 32, top_k: 5, top_p: 0.5, min_p: 0.1, repeat_penalty: 1, repeat_last_n: -1 } }),
    );
    expect(r).toMatchObject({ api: 'generate', stream: false, prompt: 'Once', system: 'be brief', raw: false, maxTokens: 9, stop: ['END'], numCtx: 32 });
    expect(r.sampling).toEqual({ temperature: 0, seed: 42, topK: 5, topP: 0.5, minP: 0.1, repeatPenalty: 1, repeatLastN: -1 });
    // -1 and -2 are Ollama's "no limit"; -1 is its random seed.
    expect(validateOllamaChat(chat({ options: { num_predict: -2, seed: -1 } }))).toMatchObject({ maxTokens: null, sampling: { seed: RANDOM_SEED } });
  });

  it('accepts loading and speed knobs and neutral samplers, and ignores them', () => {
    const r = validateOllamaChat(chat({ keep_alive: '5m', think: false, options: { num_thread: 4, num_gpu: 0, use_mmap: true, num_batch: 512, typical_p: 1, mirostat: 0, presence_penalty: 0.5 } }));
    expect(r.sampling).toEqual({ ...OLLAMA_DEFAULTS, seed: RANDOM_SEED });
    expect(validateOllamaChat(chat({ keep_alive: 0 })).stream).toBe(true);
  });

  it("format \"json\" or a schema becomes the sampler's grammar", () => {
    expect(validateOllamaChat(chat({ format: 'json' })).sampling.grammar).toBe(JSON_OBJECT_GBNF);
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    expect(validateOllamaGenerate(gen({ format: schema })).sampling.grammar).toBe(jsonSchemaToGbnf(schema));
    expect(validateOllamaGenerate(gen({ format: '' })).sampling).not.toHaveProperty('grammar');
  });

  it('an empty chat or generate only asks for the model (Ollama answers done_reason "load")', () => {
    expect(validateOllamaChat({ model: 'm' }).messages).toEqual([]);
    expect(validateOllamaGenerate({ model: 'm' }).prompt).toBe('');
  });

  it('refuses what it cannot honour with a 400 that names the field', () => {
    const cases: [() => unknown, string, string][] = [
      [() => validateOllamaChat(chat({ options: { temperature: 'hot' } })), 'options.temperature', 'invalid_type'],
      [() => validateOllamaChat(chat({ options: { temperature: 3 } })), 'options.temperature', 'invalid_value'],
      [() => validateOllamaChat(chat({ options: { num_predict: 0 } })), 'options.num_predict', 'invalid_value'],
      [() => validateOllamaChat(chat({ options: { num_ctx: 0 } })), 'options.num_ctx', 'invalid_value'],
      [() => validateOllamaChat(chat({ options: { stop: 'x'.repeat(2000) } })), 'options.stop', 'invalid_value'],
      [() => validateOllamaChat(chat({ options: { mirostat: 'on' } })), 'options.mirostat', 'invalid_type'],
      [() => validateOllamaChat(chat({ options: { typical_p: 200 } })), 'options.typical_p', 'invalid_value'],
      [() => validateOllamaChat(chat({ options: [] })), 'options', 'invalid_type'],
      [() => validateOllamaChat(chat({ stream: 'yes' })), 'stream', 'invalid_type'],
      [() => validateOllamaChat(chat({ tools: [{ type: 'function' }] })), 'tools[0].function', 'missing_required_parameter'],
      [() => validateOllamaChat(chat({ messages: [{ role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: '{}' } }] }] })), 'messages[0].tool_calls[0].function.arguments', 'invalid_type'],
      [() => validateOllamaChat(chat({ messages: [{ role: 'user', content: 'x', tool_calls: [{ function: { name: 'f' } }] }] })), 'messages[0].tool_calls', 'invalid_value'],
      [() => validateOllamaChat(chat({ think: true })), 'think', 'unsupported_parameter'],
      [() => validateOllamaChat(chat({ keep_alive: {} })), 'keep_alive', 'invalid_type'],
      [() => validateOllamaChat(chat({ messages: [{ role: 'wizard', content: '1' }] })), 'messages[0].role', 'invalid_value'],
      [() => validateOllamaChat(chat({ messages: [{ role: 'user', content: 'x', images: ['aGk='] }] })), 'images', 'unsupported_parameter'],
      [() => validateOllamaChat(chat({ messages: [{ role: 'user', content: 3 }] })), 'messages[0].content', 'invalid_type'],
      [() => validateOllamaChat(chat({ messages: 'hi' })), 'messages', 'invalid_type'],
      [() => validateOllamaGenerate(gen({ context: [1, 2, 3] })), 'context', 'unsupported_parameter'],
      [() => validateOllamaGenerate(gen({ template: '{{ .Prompt }}' })), 'template', 'unsupported_parameter'],
      [() => validateOllamaGenerate(gen({ suffix: 5 })), 'suffix', 'invalid_type'],
      [() => validateOllamaChat(chat({ logprobs: true, top_logprobs: 21 })), 'top_logprobs', 'invalid_value'],
      [() => validateOllamaGenerate(gen({ raw: true, system: 'x' })), 'system', 'invalid_value'],
      [() => validateOllamaGenerate(gen({ prompt: 7 })), 'prompt', 'invalid_type'],
      [() => validateOllamaGenerate([]), '', 'invalid_body'],
      [() => validateOllamaChat(chat({ format: 'yaml' })), 'format', 'invalid_value'],
      [() => validateOllamaChat(chat({ format: { type: 'string', format: 'uri' } })), 'format', 'unsupported_schema'],
    ];
    for (const [f, param, code] of cases) {
      const e = refusal(f);
      expect(e.status, e.message).toBe(400);
      expect([e.param ?? '', e.code]).toEqual([param, code]);
    }
  });

  it('show names the model with model or, as older clients do, name; none is the loaded one', () => {
    expect(validateOllamaShow({ model: 'a' })).toEqual({ model: 'a', ignored: [] });
    expect(validateOllamaShow({ name: 'b', verbose: true }).model).toBe('b');
    expect(validateOllamaShow({}).model).toBeNull();
    expect(validateOllamaShow({ model: 'a', size: 1 }).ignored).toEqual(['size']);
  });

  it('accepts and names what Ollama accepts and this server does not apply: unknown fields and options, typical_p, tfs_z, mirostat', () => {
    const r = validateOllamaChat({
      messages: [{ role: 'user', content: 'x', extra: 1 }],
      temprature: 1,
      options: { temprature: 1, typical_p: 0.7, tfs_z: 0.5, mirostat: 2, mirostat_tau: 5, temperature: 0.2 },
    });
    expect(r.model).toBeNull();
    expect(r.sampling.temperature).toBe(0.2);
    expect(r.ignored.sort()).toEqual(['messages[0].extra', 'options.mirostat', 'options.temprature', 'options.tfs_z', 'options.typical_p', 'temprature']);
    expect(validateOllamaChat(chat({ options: { typical_p: 1, tfs_z: 1, mirostat: 0 } })).ignored).toEqual([]);
  });
});
