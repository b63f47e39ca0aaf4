import { describe, expect, it } from 'vitest';
import { groupGgufFiles, missingShardsReason } from './file-groups.js';
import { hfRepoId, orderRevisions } from './hf-cache.js';

describe('grouping GGUF files into models', () => {
  it('a split set is one model with its shards in order; singles stay single', () => {
    const g = groupGgufFiles(['r/m-00002-of-00002.gguf', 'r/m-00001-of-00002.gguf', 'r/other.gguf', 's/m-00001-of-00002.gguf']);
    expect(g.map((x) => [x.label, x.files, x.missing])).toEqual([
      ['r/m (2 shards)', ['r/m-00001-of-00002.gguf', 'r/m-00002-of-00002.gguf'], []],
      ['r/other.gguf', ['r/other.gguf'], []],
      ['s/m (2 shards)', ['s/m-00001-of-00002.gguf'], [2]],
    ]);
    expect(missingShardsReason(g[2]!)).toBe('split set incomplete: shard 2 of 2 missing');
  });
});

describe('the Hugging Face cache layout', () => {
  it('repo ids from folder names', () => {
    expect(hfRepoId('models--TheBloke--Llama-2-7B-GGUF')).toBe('TheBloke/Llama-2-7B-GGUF');
    expect(hfRepoId('models--gpt2')).toBe('gpt2');
    expect(hfRepoId('datasets--x--y')).toBeNull();
    expect(hfRepoId('models----x')).toBeNull();
  });
  it('the revision refs/main names comes first', () => {
    expect(orderRevisions(['b', 'a', 'c'], 'c')).toEqual(['c', 'a', 'b']);
    expect(orderRevisions(['b', 'a'], null)).toEqual(['a', 'b']);
  });
});
