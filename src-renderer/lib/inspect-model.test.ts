import { describe, expect, it } from 'vitest';
import { normalizeInspect, summariseValue } from './inspect-model.js';

describe('normalizeInspect', () => {
  it('reads a snake_case inspect document', () => {
    const info = normalizeInspect({
      name: 'tiny',
      architecture: 'qwen2',
      parameter_count: 1000,
      file_bytes: 5000,
      tensor_bytes: 4000,
      context_length: 512,
      tokenizer: { model: 'gpt2', vocab_size: 151 },
      quantization: { q8_0: { count: 3, bytes: 3000 }, f32: { count: 2, bytes: 1000 } },
      layers: [
        { index: 0, bytes: 1500, tensors: [{ name: 'blk.0.attn_q.weight', type: 'q8_0', nbytes: 1500, dims: [4, 4] }] },
        { index: 1, tensors: [{ name: 'blk.1.attn_q.weight', type: 'q8_0', nbytes: 1200 }] },
      ],
      metadata: { 'general.name': 'tiny', 'tokenizer.chat_template': '{{x}}' },
    });
    expect(info.arch).toBe('qwen2');
    expect(info.nParams).toBe(1000);
    expect(info.ctxTrain).toBe(512);
    expect(info.tokenizer).toBe('gpt2');
    expect(info.vocabSize).toBe(151);
    expect(info.quant).toEqual([
      { type: 'q8_0', count: 3, bytes: 3000 },
      { type: 'f32', count: 2, bytes: 1000 },
    ]);
    expect(info.layers.map((l) => l.bytes)).toEqual([1500, 1200]);
    expect(info.chatTemplate).toBe('{{x}}');
  });
  it('falls back to metadata for name, architecture and context', () => {
    const info = normalizeInspect({ metadata: [{ key: 'general.architecture', value: 'llama' }, { key: 'general.name', value: 'M' }, { key: 'llama.context_length', value: 2048 }] });
    expect(info.arch).toBe('llama');
    expect(info.name).toBe('M');
    expect(info.ctxTrain).toBe(2048);
    expect(info.layers).toEqual([]);
    expect(info.chatTemplate).toBeNull();
  });
  it('does not throw on garbage', () => {
    expect(normalizeInspect(null).name).toBe('unnamed model');
    expect(normalizeInspect('x').layers).toEqual([]);
  });
});

describe('summariseValue', () => {
  it('summarises long arrays with their length', () => {
    const s = summariseValue(Array.from({ length: 32000 }, (_, i) => `t${i}`));
    expect(s).toContain('(32000 items)');
    expect(s.length).toBeLessThan(100);
  });
  it('keeps short arrays whole and truncates long strings', () => {
    expect(summariseValue([1, 2, 3])).toBe('[1, 2, 3]');
    expect(summariseValue('a'.repeat(1000))).toContain('(1000 chars)');
  });
});
