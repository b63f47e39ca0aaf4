import { describe, expect, it } from 'vitest';
import { llamaPrompt } from './llama-prompts.js';

/** Each character's code, BOS 1 first when asked. */
const tokenize = async (text: string, first: boolean) => [...(first ? [1] : []), ...[...text].map((c) => c.charCodeAt(0))];

describe('llamaPrompt', () => {
  it("takes llama-server's prompt forms: a mixed sequence becomes ids (BOS only before a leading string), a batch's mixed sequences and prompt_string objects too", async () => {
    expect(await llamaPrompt([5, 6, 'ab', 7], tokenize)).toEqual([5, 6, 97, 98, 7]);
    expect(await llamaPrompt(['ab', 7], tokenize)).toEqual([1, 97, 98, 7]);
    expect(await llamaPrompt([[5, 6], 'ab', { prompt_string: 'cd' }, [8, 'e']], tokenize)).toEqual([[5, 6], 'ab', 'cd', [8, 101]]);
  });

  it('leaves OpenAI forms and malformed values as they are, for the validation to answer', async () => {
    expect(await llamaPrompt('text', tokenize)).toBe('text');
    expect(await llamaPrompt([1, 2, 3], tokenize)).toEqual([1, 2, 3]);
    expect(await llamaPrompt(['a', 'b'], tokenize)).toEqual(['a', 'b']);
    expect(await llamaPrompt([{ prompt_string: 'x', multimodal_data: ['img'] }, true], tokenize)).toEqual([{ prompt_string: 'x', multimodal_data: ['img'] }, true]);
  });
});
