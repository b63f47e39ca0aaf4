import { describe, expect, it } from 'vitest';
import { downloadFileName, isModelUrl, parseModelUrl, redactUrl, splitSetUrls, urlFileName } from './model-url.js';

describe('model URLs', () => {
  it('http(s) URLs are remote models; paths are not', () => {
    expect(isModelUrl('https://huggingface.co/a/b/resolve/main/m.gguf')).toBe(true);
    expect(isModelUrl('HTTP://x/m.gguf')).toBe(true);
    expect(isModelUrl('./https/m.gguf')).toBe(false);
    expect(isModelUrl('/models/m.gguf')).toBe(false);
    expect(() => parseModelUrl('ftp://x/m.gguf')).toThrow(/only http and https/);
    expect(() => parseModelUrl('https://user:pw@x/m.gguf')).toThrow(/credentials/);
  });

  it('a split set by the name of any shard: every shard URL, query kept', () => {
    expect(splitSetUrls('https://h/r/resolve/main/Q4/m-00002-of-00003.gguf?download=true')).toEqual([
      'https://h/r/resolve/main/Q4/m-00001-of-00003.gguf?download=true',
      'https://h/r/resolve/main/Q4/m-00002-of-00003.gguf?download=true',
      'https://h/r/resolve/main/Q4/m-00003-of-00003.gguf?download=true',
    ]);
    expect(splitSetUrls('https://h/m.gguf')).toEqual(['https://h/m.gguf']);
    expect(splitSetUrls('https://h/m-00004-of-00003.gguf')).toEqual(['https://h/m-00004-of-00003.gguf']);
  });

  it('the saved name is the last path segment, decoded, never a path', () => {
    expect(urlFileName('https://h/a/My%20Model.gguf?x=1')).toBe('My Model.gguf');
    expect(downloadFileName('https://h/a/My%20Model.gguf')).toBe('My Model.gguf');
    expect(downloadFileName('https://h/a/..%2F..%2Fetc%2Fpasswd')).toBe('_.._etc_passwd');
    expect(() => downloadFileName('https://h/')).toThrow(/not a usable file name/);
  });

  it('messages never show a query string (signed URLs carry tokens there)', () => {
    expect(redactUrl('https://cdn/x.gguf?X-Amz-Signature=secret')).toBe('https://cdn/x.gguf?…');
  });
});
