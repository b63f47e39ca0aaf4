import { describe, expect, it } from 'vitest';
import { StopMatcher } from './stop-strings.js';

/** Feeds the pieces; returns what went out, whether a stop string ended it, and after which piece. */
function run(stops: string[], pieces: string[]): { out: string; hit: boolean; at: number | null } {
  const m = new StopMatcher(stops);
  let out = '';
  for (let i = 0; i < pieces.length; i++) {
    const s = m.push(pieces[i] as string);
    out += s.emit;
    if (s.stopped) return { out, hit: m.hit, at: i };
  }
  return { out: out + m.flush(), hit: m.hit, at: null };
}

describe('StopMatcher', () => {
  it('passes text through untouched without stop strings', () => {
    expect(run([], ['a', 'b', 'c'])).toEqual({ out: 'abc', hit: false, at: null });
  });

  it('cuts at a stop string inside one piece, and drops it', () => {
    expect(run(['END'], ['one ', 'two END three'])).toEqual({ out: 'one two ', hit: true, at: 1 });
  });

  it('finds a stop string split across pieces and never sends part of it', () => {
    const m = new StopMatcher(['</s>']);
    expect(m.push('hello <')).toEqual({ emit: 'hello ', stopped: false });
    expect(m.push('/')).toEqual({ emit: '', stopped: false });
    expect(m.push('s> more')).toEqual({ emit: '', stopped: true });
    expect(m.push('after')).toEqual({ emit: '', stopped: true });
  });

  it('releases held text when it turns out not to be a stop string', () => {
    expect(run(['STOP'], ['a ST', 'ART b'])).toEqual({ out: 'a START b', hit: false, at: null });
  });

  it('releases held text at the end when the generation ends first', () => {
    expect(run(['STOP'], ['a ST'])).toEqual({ out: 'a ST', hit: false, at: null });
  });

  it('the earliest of several stop strings wins', () => {
    expect(run(['bb', 'a'], ['xxbba'])).toEqual({ out: 'xx', hit: true, at: 0 });
    // The longer one begins first: nothing of it goes out.
    expect(run(['cd', 'abcdef'], ['abc', 'def'])).toEqual({ out: '', hit: true, at: 1 });
    expect(run(['cd', 'abcdef'], ['abc', 'dxf'])).toEqual({ out: 'ab', hit: true, at: 1 });
  });

  it('a stop string at the very start leaves nothing', () => {
    expect(run(['\n'], ['\nrest'])).toEqual({ out: '', hit: true, at: 0 });
  });

  it('works character by character, with overlapping prefixes', () => {
    const text = 'aaab';
    expect(run(['aab'], [...text])).toEqual({ out: 'a', hit: true, at: 3 });
  });
});
