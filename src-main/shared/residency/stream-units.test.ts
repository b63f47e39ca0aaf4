import { describe, expect, it } from 'vitest';
import { buildInventory, type FileMapping, type LoadedTensor } from './inventory.js';
import { buildStreamLayout } from './stream-units.js';

const PAGE = 4096;
// One file mapped at 0x10000000 from offset 0; tensors laid out back to back, 32-byte aligned.
function inventory(sizes: [string, number][]) {
  const base = 0x10000000;
  let off = 4096;
  const tensors: LoadedTensor[] = sizes.map(([name, bytes]) => {
    const t = { name, type: 'q4_0', bytes, addr: base + off, host: true, buffer: 'CPU_Mapped' };
    off = Math.ceil((off + bytes) / 32) * 32;
    return t;
  });
  const maps: FileMapping[] = [{ file: 0, start: base, end: base + Math.ceil(off / PAGE) * PAGE, offset: 0 }];
  return buildInventory(tensors, maps, 2, PAGE);
}

describe('buildStreamLayout', () => {
  const inv = inventory([
    ['token_embd.weight', 300_000],
    ['blk.0.attn_norm.weight', 8192],
    ['blk.0.ffn_gate.weight', 100_000],
    ['blk.0.ffn_up.weight', 100_000],
    ['blk.0.ffn_down.weight', 100_000],
    ['blk.1.ffn_gate.weight', 100_000],
    ['blk.1.ffn_up.weight', 100_000],
    ['output.weight', 200_000],
  ]);

  it('groups adjacent streamed tensors of one layer up to the unit size, with their file offsets', () => {
    const l = buildStreamLayout(inv, ['blk.0.ffn_gate.weight', 'blk.0.ffn_up.weight', 'blk.0.ffn_down.weight', 'blk.1.ffn_gate.weight'], 200_000, ['token_embd.weight']);
    expect(l.units.map((u) => u.tensors.map((t) => t.name))).toEqual([
      ['blk.0.ffn_gate.weight', 'blk.0.ffn_up.weight'],
      ['blk.0.ffn_down.weight'],
      // A new layer starts a new unit even when adjacent.
      ['blk.1.ffn_gate.weight'],
    ]);
    for (const u of l.units)
      for (const t of u.tensors) {
        const it = inv.tensors.find((x) => x.name === t.name)!;
        expect(t.offset).toBe(it.fileOffset);
        expect(t.bytes).toBe(it.bytes);
      }
    expect(l.streamedBytes).toBe(400_000);
  });

  it('locks every page of every other weight, never a page only streamed tensors use, and leaves the rows-only tensor to random access', () => {
    const streamed = ['blk.0.ffn_up.weight', 'blk.1.ffn_gate.weight'];
    const l = buildStreamLayout(inv, streamed, 1 << 20, ['token_embd.weight']);
    const inPinned = (page: number) => l.pinned.some(([a, len]) => page * PAGE >= a && page * PAGE < a + len);
    for (const t of inv.tensors) {
      if (t.name === 'token_embd.weight' || streamed.includes(t.name)) continue;
      for (let p = t.firstPage; p <= t.lastPage; p++) expect(inPinned(p), `${t.name} page ${p}`).toBe(true);
    }
    for (const t of inv.tensors.filter((x) => streamed.includes(x.name)))
      for (let p = t.firstPage + 1; p < t.lastPage; p++) expect(inPinned(p), `${t.name} interior page ${p}`).toBe(false);
    const embd = inv.tensors.find((t) => t.name === 'token_embd.weight')!;
    expect(l.random).toHaveLength(1);
    expect(l.random[0]![0]).toBeGreaterThanOrEqual(embd.firstPage * PAGE);
    // Pinned ranges are page aligned and do not overlap.
    const sorted = [...l.pinned].sort((a, b) => a[0] - b[0]);
    for (let i = 0; i < sorted.length; i++) {
      expect(sorted[i]![0] % PAGE).toBe(0);
      expect(sorted[i]![1] % PAGE).toBe(0);
      if (i > 0) expect(sorted[i]![0]).toBeGreaterThanOrEqual(sorted[i - 1]![0] + sorted[i - 1]![1]);
    }
  });
});
