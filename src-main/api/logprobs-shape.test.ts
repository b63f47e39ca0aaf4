import { describe, expect, it } from 'vitest';
import { ChoiceLogprobs, chatLogprobs, legacyLogprobs, llamaProbabilities } from './logprobs-shape.js';
import type { PositionLogprobs } from '../shared/worker-protocol.js';

const bytes = (s: string) => Array.from(Buffer.from(s));
const at = (token: string, logprob: number, alts: [string, number][]): PositionLogprobs => ({
  id: token.length,
  bytes: bytes(token),
  logprob,
  top: alts.map(([t, l]) => ({ id: t.length, bytes: bytes(t), logprob: l })),
});
const A = at(' upon', -0.5, [[' upon', -0.5], [' a', -1.5]]);
const B = at(' a', -0.25, [[' a', -0.25]]);

describe('log-probabilities in each API shape', () => {
  it('chat and llama-server: token, logprob, bytes and the alternatives', () => {
    expect(chatLogprobs([A]).content[0]).toEqual({ token: ' upon', logprob: -0.5, bytes: bytes(' upon'), top_logprobs: [{ token: ' upon', logprob: -0.5, bytes: bytes(' upon') }, { token: ' a', logprob: -1.5, bytes: bytes(' a') }] });
    expect(llamaProbabilities([B])).toEqual([{ id: 2, token: ' a', bytes: bytes(' a'), logprob: -0.25, top_logprobs: [{ id: 2, token: ' a', bytes: bytes(' a'), logprob: -0.25 }] }]);
  });

  it("legacy completions: offsets from the prompt's end, or with the echoed prompt from 0 (its first token null)", () => {
    expect(legacyLogprobs([A, B], 4)).toEqual({ tokens: [' upon', ' a'], token_logprobs: [-0.5, -0.25], top_logprobs: [{ ' upon': -0.5, ' a': -1.5 }, { ' a': -0.25 }], text_offset: [4, 9] });
    const echoed = legacyLogprobs([B], 0, { firstBytes: bytes('Once'), positions: [A] });
    expect(echoed.tokens).toEqual(['Once', ' upon', ' a']);
    expect(echoed.token_logprobs).toEqual([null, -0.5, -0.25]);
    expect(echoed.top_logprobs[0]).toBeNull();
    expect(echoed.text_offset).toEqual([0, 4, 9]);
  });

  it('streamed legacy chunks carry on the offsets of the chunks before them', () => {
    const c = new ChoiceLogprobs('completion', 4);
    expect((c.chunk([A]) as { text_offset: number[] }).text_offset).toEqual([4]);
    expect((c.chunk([B]) as { text_offset: number[] }).text_offset).toEqual([9]);
    expect((c.whole() as { text_offset: number[] }).text_offset).toEqual([4, 9]);
  });

  it('a piece of a character split across tokens shows as U+FFFD, its bytes exact', () => {
    const half = { ...A, bytes: [0xe2, 0x82], top: [] };
    expect(chatLogprobs([half]).content[0]).toMatchObject({ token: '\ufffd', bytes: [0xe2, 0x82] });
  });
});
