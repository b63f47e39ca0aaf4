import { describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../src-main/shared/api.js';
import { coalesce, createEventBatcher } from './event-batcher.js';

const tok = (requestId: string, index: number, text: string): ApiEvent => ({ type: 'token', requestId, token: { index, tokenId: 100 + index, text, tMs: index } });

describe('event batching', () => {
  it('folds consecutive tokens of one request into one event with all the text, in order', () => {
    const state: ApiEvent = { type: 'load-progress', fraction: 1 };
    const out = coalesce([tok('a', 0, 'He'), tok('a', 1, 'llo'), tok('b', 0, 'x'), state, tok('a', 2, '!')]);
    expect(out.map((o) => [o.event.type, o.tokens])).toEqual([
      ['token', 2],
      ['token', 1],
      ['load-progress', 1],
      ['token', 1],
    ]);
    expect((out[0]!.event as Extract<ApiEvent, { type: 'token' }>).token).toMatchObject({ text: 'Hello', index: 1 });
  });

  it('keeps every speculative pass the folded tokens began, in order', () => {
    const pass = (index: number, drafted: number, accepted: number): ApiEvent => ({ type: 'token', requestId: 'a', token: { index, tokenId: index, text: 'x', tMs: index, pass: { drafted, accepted } } });
    const out = coalesce([tok('a', 0, 'x'), pass(1, 4, 2), tok('a', 2, 'y'), tok('a', 3, 'z'), pass(4, 4, 0), tok('b', 0, 'q')]);
    expect(out.map((o) => [o.tokens, o.passes])).toEqual([
      [5, [{ drafted: 4, accepted: 2 }, { drafted: 4, accepted: 0 }]],
      [1, []],
    ]);
  });

  it('handles everything queued since the last flush in one go', () => {
    let flush: (() => void) | null = null;
    const seen: [string, number][] = [];
    const push = createEventBatcher((e, n) => seen.push([e.type, n]), (fn) => (flush = fn));
    for (let i = 0; i < 500; i++) push(tok('a', i, 'x'));
    push({ type: 'generation-error', requestId: 'a', message: 'boom' });
    expect(seen).toEqual([]);
    flush!();
    expect(seen).toEqual([
      ['token', 500],
      ['generation-error', 1],
    ]);
  });
});
