import { describe, expect, it } from 'vitest';
import { parseContentRange, parseSha256File, publishedSha256, unsatisfiedRangeTotal } from './http-headers.js';

const HEX = 'a'.repeat(64);

describe('HTTP headers of a remote file', () => {
  it('Content-Range', () => {
    expect(parseContentRange('bytes 0-1023/4096')).toEqual({ start: 0, end: 1023, total: 4096 });
    expect(parseContentRange('bytes 5-9/*')).toEqual({ start: 5, end: 9, total: null });
    expect(parseContentRange('bytes 9-5/10')).toBeNull();
    expect(parseContentRange('bytes 0-10/10')).toBeNull();
    expect(parseContentRange('items 0-1/2')).toBeNull();
    expect(parseContentRange(undefined)).toBeNull();
    expect(unsatisfiedRangeTotal('bytes */0')).toBe(0);
  });

  it('a published sha256: X-Linked-Etag on any hop when it is 64 hex digits; a plain ETag never (it is opaque)', () => {
    expect(publishedSha256([{ 'x-linked-etag': `"${HEX.toUpperCase()}"` }, { etag: '"abc"' }])).toEqual({ sha256: HEX, from: 'X-Linked-Etag' });
    expect(publishedSha256([{ etag: '"x"' }, { 'x-linked-etag': HEX }])).toEqual({ sha256: HEX, from: 'X-Linked-Etag' });
    expect(publishedSha256([{ etag: `"${HEX}"` }])).toBeNull();
    expect(publishedSha256([{ 'x-linked-etag': '"5d41402abc4b2a76b9719d911017c592"' }])).toBeNull();
    expect(publishedSha256([{}])).toBeNull();
  });

  it('a .sha256 file as sha256sum writes it', () => {
    expect(parseSha256File(`${HEX}  m.gguf\n`, 'm.gguf')).toBe(HEX);
    expect(parseSha256File(`${HEX} *m.gguf\n`, 'm.gguf')).toBe(HEX);
    expect(parseSha256File(`${HEX}\n`, 'm.gguf')).toBe(HEX);
    expect(parseSha256File(`${HEX}  other.gguf\n`, 'm.gguf')).toBeNull();
    expect(parseSha256File('not a hash', 'm.gguf')).toBeNull();
  });
});
