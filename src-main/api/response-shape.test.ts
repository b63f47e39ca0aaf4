import { describe, expect, it } from 'vitest';
import { badRequest } from './errors.js';
import { chunkObject, completionObject, finishReasonOf, usageChunk, usageOf, type RamforgeExtras } from './response-shape.js';
import { SSE_DONE, sseData, sseError } from './sse.js';

const meta = { id: 'chatcmpl-1', created: 1700000000, model: 'tiny', systemFingerprint: 'ramforge-0.1.0' };
const extras: RamforgeExtras = { policy: 'stream', sequences: 2, bytes_read_per_token: 1024, tokens_per_pass: 1.5, prompt_ms: 10, ttft_ms: 12, decode_tok_s: 30 };

describe('answers in OpenAI\'s shapes', () => {
  it('chat.completion: one choice, the message, finish reason, usage, our extras under ramforge', () => {
    expect(completionObject('chat', meta, 'Hi!', 'stop', usageOf(5, 2), extras)).toEqual({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1700000000,
      model: 'tiny',
      system_fingerprint: 'ramforge-0.1.0',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi!', refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
      ramforge: extras,
    });
  });

  it('text_completion: the text in the choice', () => {
    const o = completionObject('completion', { ...meta, id: 'cmpl-1' }, ' upon', 'length', usageOf(3, 1), extras) as { object: string; choices: unknown[] };
    expect(o.object).toBe('text_completion');
    expect(o.choices).toEqual([{ index: 0, text: ' upon', logprobs: null, finish_reason: 'length' }]);
  });

  it('finish reasons: end of text and cancellation are stop, limits are length', () => {
    expect(finishReasonOf('eos')).toBe('stop');
    expect(finishReasonOf('cancelled')).toBe('stop');
    expect(finishReasonOf('max_tokens')).toBe('length');
    expect(finishReasonOf('ctx_full')).toBe('length');
  });
});

describe('stream chunks', () => {
  it('chat: the role first, then content deltas, then an empty delta with the finish reason', () => {
    expect(chunkObject('chat', meta, { role: true }, false)).toEqual({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1700000000,
      model: 'tiny',
      system_fingerprint: 'ramforge-0.1.0',
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
    });
    expect((chunkObject('chat', meta, { text: 'Hel' }, false) as { choices: unknown[] }).choices).toEqual([{ index: 0, delta: { content: 'Hel' }, logprobs: null, finish_reason: null }]);
    expect((chunkObject('chat', meta, { finish: 'stop' }, false) as { choices: unknown[] }).choices).toEqual([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]);
  });

  it('text: each chunk a text_completion with its piece', () => {
    expect((chunkObject('completion', meta, { text: 'x' }, false) as { object: string; choices: unknown[] }).choices).toEqual([{ index: 0, text: 'x', logprobs: null, finish_reason: null }]);
  });

  it('with include_usage: usage null on every chunk, then a last chunk with no choices and the counts', () => {
    expect(chunkObject('chat', meta, { text: 'a' }, true)).toMatchObject({ usage: null });
    expect(usageChunk('chat', meta, usageOf(4, 3), extras)).toEqual({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1700000000,
      model: 'tiny',
      system_fingerprint: 'ramforge-0.1.0',
      choices: [],
      usage: { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 },
      ramforge: extras,
    });
  });

  it('server-sent events: one data line per chunk (newlines escaped), [DONE] last, errors in the error shape', () => {
    const ev = sseData(chunkObject('chat', meta, { text: 'two\nlines' }, false));
    expect(ev.startsWith('data: {')).toBe(true);
    expect(ev.endsWith('}\n\n')).toBe(true);
    expect(ev.slice(0, -2).includes('\n')).toBe(false);
    expect(JSON.parse(ev.slice(6))).toMatchObject({ choices: [{ delta: { content: 'two\nlines' } }] });
    expect(SSE_DONE).toBe('data: [DONE]\n\n');
    expect(JSON.parse(sseError(badRequest('no', 'x', 'bad')).slice(6))).toEqual({ error: { message: 'no', type: 'invalid_request_error', param: 'x', code: 'bad' } });
  });
});
