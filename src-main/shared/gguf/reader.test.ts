import { describe, expect, it } from 'vitest';
import { parseGgufHeader, GgufNeedMoreBytes } from './reader.js';
import { GgufValueType as V } from './ggml-types.js';
import { buildGguf } from './build-gguf.test-util.js';
import { tinyModel, tinySpec } from './tiny-models.test-util.js';
import type { GgufArray } from './reader-types.js';

describe('parseGgufHeader on valid files', () => {
  for (const arch of ['llama', 'qwen2', 'gptneox'] as const) {
    it(`reads a ${arch} header: tensors, ranges, data offset`, () => {
      const spec = tinySpec({ arch, matType: 8 });
      const { bytes, offsets } = buildGguf(spec);
      const h = parseGgufHeader(bytes, bytes.length);
      expect(h.version).toBe(3);
      expect(h.tensors.map((t) => t.name)).toEqual(spec.tensors?.map((t) => t.name));
      expect(h.dataOffset).toBe(offsets.dataOffset);
      expect(h.dataOffset % 32).toBe(0);
      const last = h.tensors[h.tensors.length - 1];
      expect(last?.end).toBe(bytes.length);
      for (const [i, t] of h.tensors.entries()) {
        expect(t.start).toBe(h.dataOffset + t.offset);
        expect(t.end - t.start).toBe(t.nbytes);
        expect(t.infoOffset).toBe(offsets.tensorInfo[i]);
      }
      const q = h.tensors.find((t) => t.name === 'token_embd.weight');
      expect(q?.typeName).toBe('Q8_0');
      expect(q?.nbytes).toBe((32 * 16 / 32) * 34);
      expect(h.kvByKey.get('general.architecture')?.value).toBe(arch);
    });
  }

  it('reads every value type, nested arrays, and keeps 64-bit values exact as bigint', () => {
    const big = 2n ** 63n + 5n;
    const { bytes } = buildGguf({
      kv: [
        { key: 'u8', type: V.UINT8, value: 250 },
        { key: 'i8', type: V.INT8, value: -5 },
        { key: 'u16', type: V.UINT16, value: 65000 },
        { key: 'i16', type: V.INT16, value: -300 },
        { key: 'u32', type: V.UINT32, value: 4_000_000_000 },
        { key: 'i32', type: V.INT32, value: -70000 },
        { key: 'f32', type: V.FLOAT32, value: 1.5 },
        { key: 'bool', type: V.BOOL, value: true },
        { key: 'str', type: V.STRING, value: 'héllo ✓' },
        { key: 'u64', type: V.UINT64, value: big },
        { key: 'i64', type: V.INT64, value: -2n },
        { key: 'f64', type: V.FLOAT64, value: Math.PI },
        { key: 'arr', type: V.ARRAY, value: { elementType: V.STRING, items: ['a', 'b', 'c'] } },
        {
          key: 'nested',
          type: V.ARRAY,
          value: { elementType: V.ARRAY, items: [{ elementType: V.INT32, items: [1, 2] }, { elementType: V.INT32, items: [] }] },
        },
      ],
    });
    const h = parseGgufHeader(bytes, bytes.length);
    const v = (k: string): unknown => h.kvByKey.get(k)?.value;
    expect(v('u8')).toBe(250);
    expect(v('i8')).toBe(-5);
    expect(v('u16')).toBe(65000);
    expect(v('i16')).toBe(-300);
    expect(v('u32')).toBe(4_000_000_000);
    expect(v('i32')).toBe(-70000);
    expect(v('f32')).toBe(1.5);
    expect(v('bool')).toBe(true);
    expect(v('str')).toBe('héllo ✓');
    expect(v('u64')).toBe(big);
    expect(v('i64')).toBe(-2n);
    expect(v('f64')).toBe(Math.PI);
    expect((v('arr') as GgufArray).items).toEqual(['a', 'b', 'c']);
    expect((v('arr') as GgufArray).elementType).toBe(V.STRING);
    const nested = v('nested') as GgufArray;
    expect(nested.elementType).toBe(V.ARRAY);
    expect((nested.items[0] as GgufArray).items).toEqual([1, 2]);
    expect(h.kv.map((e) => e.key)[0]).toBe('u8');
    expect(h.tensors).toEqual([]);
  });

  it('asks for more bytes when given a prefix of a longer file, and parses once given enough', () => {
    const bytes = tinyModel();
    const full = parseGgufHeader(bytes, bytes.length);
    let needed = 0;
    try {
      parseGgufHeader(bytes.subarray(0, 40), bytes.length);
    } catch (e) {
      expect(e).toBeInstanceOf(GgufNeedMoreBytes);
      needed = (e as GgufNeedMoreBytes).needed;
    }
    expect(needed).toBeGreaterThan(40);
    // The header region alone (no payload) is enough.
    const h = parseGgufHeader(bytes.subarray(0, full.dataOffset), bytes.length);
    expect(h.tensors.length).toBe(full.tensors.length);
  });
});
