import { describe, expect, it } from 'vitest';
import { buildInventory, layerOf, parseMaps, type LoadedTensor } from './inventory.js';

const P = 4096;
const BASE = 0x7f0000000000;

function t(name: string, addr: number, bytes: number, host = true): LoadedTensor {
  return { name, type: 'q4_0', bytes, addr: BASE + addr, host, buffer: 'CPU_Mapped' };
}

describe('layerOf', () => {
  it('reads the block index and marks non-layer tensors persistent', () => {
    expect(layerOf('blk.12.attn_q.weight')).toBe(12);
    expect(layerOf('token_embd.weight')).toBe(-1);
    expect(layerOf('output_norm.weight')).toBe(-1);
  });
});

describe('buildInventory', () => {
  const mapping = [{ file: 0, start: BASE, end: BASE + 100 * P, offset: 0 }];

  it('gives each layer only the pages no other owner touches', () => {
    // token_embd ends mid-page 2; layer 0 starts there and ends mid-page 5; layer 1 follows.
    const tensors = [t('token_embd.weight', 0, 2 * P + 100), t('blk.0.attn_q.weight', 2 * P + 100, 3 * P), t('blk.1.attn_q.weight', 5 * P + 100, 4 * P)];
    const inv = buildInventory(tensors, mapping, 2, P);
    // Page 2 is shared with the persistent embedding; page 5 is shared between layers 0 and 1;
    // page 9 (the tail of layer 1) belongs to layer 1 alone.
    expect(inv.layers[0]!.ranges).toEqual([[BASE + 3 * P, 2 * P, 0, 3 * P]]);
    expect(inv.layers[1]!.ranges).toEqual([[BASE + 6 * P, 4 * P, 0, 6 * P]]);
    const l0 = inv.tensors.find((x) => x.name === 'blk.0.attn_q.weight')!;
    expect(l0.sharedPages).toBe(2);
    expect(l0.fileOffset).toBe(2 * P + 100);
    expect(inv.persistentBytes).toBe(2 * P + 100);
  });

  it('merges contiguous tensors of one layer into one range', () => {
    const tensors = [t('blk.0.a', 0, 2 * P), t('blk.0.b', 2 * P, 2 * P)];
    const inv = buildInventory(tensors, mapping, 1, P);
    expect(inv.layers[0]!.ranges).toEqual([[BASE, 4 * P, 0, 0]]);
  });

  it('classifies tensors outside any file mapping as anonymous (repacked) and never drops them', () => {
    const tensors = [{ ...t('blk.0.a', 0, P), addr: 0x5000_0000 }, t('blk.0.b', P, P)];
    const inv = buildInventory(tensors, mapping, 1, P);
    expect(inv.tensors[0]!.backing).toBe('anonymous');
    expect(inv.anonymousBytes).toBe(P);
    expect(inv.layers[0]!.ranges).toEqual([[BASE + P, P, 0, P]]);
    expect(inv.layers[0]!.fileBackedBytes).toBe(P);
  });

  it('marks device tensors, and counts CPU repack buffers (not "host" to ggml) as anonymous RAM', () => {
    const inv = buildInventory([{ ...t('blk.0.a', 0, P, false), buffer: 'CUDA0' }, { ...t('blk.0.b', P, P, false), addr: 0x5000_0000, buffer: 'CPU_REPACK' }], mapping, 1, P);
    expect(inv.tensors.map((x) => x.backing)).toEqual(['device', 'anonymous']);
    expect(inv.layers[0]!.ranges).toEqual([]);
  });
});

describe('parseMaps', () => {
  it('finds the mappings of the model files in real /proc/self/maps lines', () => {
    const text = [
      '55d0c0a00000-55d0c0a21000 rw-p 00000000 00:00 0                          [heap]',
      '7f3a1c000000-7f3a5c000000 r--s 00000000 fd:01 1234567                    /models/m.gguf',
      '7f3a5c000000-7f3a5c100000 r--s 40000000 fd:01 1234567                    /models/m.gguf',
      '7f3a60000000-7f3a60010000 r-xp 00000000 fd:01 42                         /usr/lib/libc.so.6',
    ].join('\n');
    expect(parseMaps(text, ['/models/m.gguf'])).toEqual([
      { file: 0, start: 0x7f3a1c000000, end: 0x7f3a5c000000, offset: 0 },
      { file: 0, start: 0x7f3a5c000000, end: 0x7f3a5c100000, offset: 0x40000000 },
    ]);
  });
});
