import { ByteSink } from './writer-encode.js';
import { describe, expect, it } from 'vitest';
import { GgufValueType } from './ggml-types.js';
import { parseGgufHeader } from './reader.js';
import { buildGgufLayout } from './writer.js';
import type { WriterKv } from './writer-types.js';

/** Independent little-endian encoder for the expected bytes. */
function le(...parts: (['u32', number] | ['u64', number] | ['str', string] | ['f32', number] | ['bytes', number[]])[]): Uint8Array {
  const out: number[] = [];
  for (const [k, v] of parts) {
    if (k === 'u32') for (let i = 0; i < 4; i++) out.push((v >>> (8 * i)) & 0xff);
    else if (k === 'u64') for (let i = 0; i < 8; i++) out.push(i < 4 ? (v >>> (8 * i)) & 0xff : 0);
    else if (k === 'f32') out.push(...new Uint8Array(new Float32Array([v]).buffer));
    else if (k === 'str') {
      for (let i = 0; i < 8; i++) out.push(i === 0 ? v.length : 0);
      for (const ch of v) out.push(ch.charCodeAt(0));
    } else out.push(...v);
  }
  return Uint8Array.from(out);
}

describe('buildGgufLayout', () => {
  it('writes the exact bytes of a small header, tensor offsets padded to the alignment', () => {
    const kv: WriterKv[] = [
      { key: 'general.architecture', type: GgufValueType.STRING, value: 'x' },
      { key: 'a', type: GgufValueType.FLOAT32, value: 1.5 },
    ];
    const layout = buildGgufLayout(kv, [
      { name: 't0', dims: [3], typeId: 0 },
      { name: 't1', dims: [32, 2], typeId: 2 },
    ]);
    const body = le(
      ['u32', 0x46554747],
      ['u32', 3],
      ['u64', 2],
      ['u64', 2],
      ['str', 'general.architecture'],
      ['u32', 8],
      ['str', 'x'],
      ['str', 'a'],
      ['u32', 6],
      ['f32', 1.5],
      ['str', 't0'],
      ['u32', 1],
      ['u64', 3],
      ['u32', 0],
      ['u64', 0],
      ['str', 't1'],
      ['u32', 2],
      ['u64', 32],
      ['u64', 2],
      ['u32', 2],
      ['u64', 32], // t0 is 12 bytes, padded to 32
    );
    const padded = Math.ceil(body.length / 32) * 32;
    expect(layout.dataOffset).toBe(padded);
    expect(Array.from(layout.header.subarray(0, body.length))).toEqual(Array.from(body));
    expect(Array.from(layout.header.subarray(body.length))).toEqual(new Array(padded - body.length).fill(0));
    expect(layout.tensors.map((t) => [t.offset, t.nbytes, t.start])).toEqual([
      [0, 12, padded],
      [32, 36, padded + 32],
    ]);
    // The last tensor is padded too: 36 -> 64.
    expect(layout.fileSize).toBe(padded + 32 + 64);
  });

  it('round-trips every value type, arrays and a custom alignment through the reader', () => {
    const kv: WriterKv[] = [
      { key: 'general.alignment', type: GgufValueType.UINT32, value: 64 },
      { key: 'u8', type: GgufValueType.UINT8, value: 255 },
      { key: 'i8', type: GgufValueType.INT8, value: -128 },
      { key: 'u16', type: GgufValueType.UINT16, value: 65535 },
      { key: 'i16', type: GgufValueType.INT16, value: -32768 },
      { key: 'u32', type: GgufValueType.UINT32, value: 4294967295 },
      { key: 'i32', type: GgufValueType.INT32, value: -2147483648 },
      { key: 'f32', type: GgufValueType.FLOAT32, value: 0.25 },
      { key: 'bool', type: GgufValueType.BOOL, value: true },
      { key: 'str', type: GgufValueType.STRING, value: 'héllo ✓' },
      { key: 'u64', type: GgufValueType.UINT64, value: 2n ** 63n + 5n },
      { key: 'i64', type: GgufValueType.INT64, value: -(2n ** 62n) },
      { key: 'f64', type: GgufValueType.FLOAT64, value: Math.PI },
      { key: 'strs', type: GgufValueType.ARRAY, value: { elementType: GgufValueType.STRING, items: ['a', '', 'ccc'] } },
      { key: 'ints', type: GgufValueType.ARRAY, value: { elementType: GgufValueType.INT32, items: [1, -2, 3] } },
      { key: 'floats', type: GgufValueType.ARRAY, value: { elementType: GgufValueType.FLOAT32, items: Float32Array.from([0.5, -1]) } },
      { key: 'empty', type: GgufValueType.ARRAY, value: { elementType: GgufValueType.UINT8, items: [] } },
    ];
    const tensors = [
      { name: 'a', dims: [5, 3], typeId: 0 },
      { name: 'b', dims: [256], typeId: 12 },
      { name: 'c', dims: [7], typeId: 1 },
    ];
    const layout = buildGgufLayout(kv, tensors);
    const file = new Uint8Array(layout.fileSize);
    file.set(layout.header);
    const h = parseGgufHeader(file, file.length);
    expect(h.alignment).toBe(64);
    expect(h.dataOffset).toBe(layout.dataOffset);
    expect(h.dataOffset % 64).toBe(0);
    const values = Object.fromEntries(h.kv.map((e) => [e.key, e.value]));
    expect(values.u8).toBe(255);
    expect(values.i8).toBe(-128);
    expect(values.u16).toBe(65535);
    expect(values.i16).toBe(-32768);
    expect(values.u32).toBe(4294967295);
    expect(values.i32).toBe(-2147483648);
    expect(values.f32).toBe(0.25);
    expect(values.bool).toBe(true);
    expect(values.str).toBe('héllo ✓');
    expect(values.u64).toBe(2n ** 63n + 5n);
    expect(values.i64).toBe(-(2n ** 62n));
    expect(values.f64).toBe(Math.PI);
    expect(values.strs).toEqual({ elementType: GgufValueType.STRING, items: ['a', '', 'ccc'] });
    expect(values.ints).toEqual({ elementType: GgufValueType.INT32, items: [1, -2, 3] });
    expect(values.floats).toEqual({ elementType: GgufValueType.FLOAT32, items: [0.5, -1] });
    expect(values.empty).toEqual({ elementType: GgufValueType.UINT8, items: [] });
    expect(h.tensors.map((t) => [t.name, t.dims, t.typeId, t.offset, t.nbytes, t.start])).toEqual(
      layout.tensors.map((t) => [t.name, t.dims, t.typeId, t.offset, t.nbytes, t.start]),
    );
    expect(layout.tensors.map((t) => t.offset)).toEqual([0, 64, 64 + 192]);
  });

  it('copies a raw KV value byte for byte', () => {
    const first = buildGgufLayout([{ key: 'tokenizer.ggml.tokens', type: GgufValueType.ARRAY, value: { elementType: GgufValueType.STRING, items: ['<s>', 'hi'] } }], []);
    const h1 = parseGgufHeader(first.header, first.header.length);
    const e = h1.kv[0] as { valueOffset: number };
    const raw = first.header.slice(e.valueOffset - 4);
    const second = buildGgufLayout([{ key: 'tokenizer.ggml.tokens', raw }], []);
    expect(Array.from(second.header)).toEqual(Array.from(first.header));
  });

  it('refuses what llama.cpp would refuse', () => {
    expect(() => buildGgufLayout([], [{ name: 'q', dims: [48], typeId: 2 }])).toThrow(/block size 32/);
    expect(() => buildGgufLayout([], [{ name: 'q', dims: [256], typeId: 999 }])).toThrow(/unknown ggml type/);
    expect(() => buildGgufLayout([], [{ name: 'q', dims: [8], typeId: 0 }, { name: 'q', dims: [8], typeId: 0 }])).toThrow(/duplicate tensor/);
    expect(() => buildGgufLayout([{ key: 'k', type: GgufValueType.UINT8, value: 1 }, { key: 'k', type: GgufValueType.UINT8, value: 2 }], [])).toThrow(/duplicate metadata/);
    expect(() => buildGgufLayout([{ key: 'general.alignment', type: GgufValueType.UINT32, value: 48 }], [])).toThrow(/power of two/);
    expect(() => buildGgufLayout([{ key: 'k', type: GgufValueType.UINT8, value: 256 }], [])).toThrow(/does not fit/);
    expect(() => buildGgufLayout([{ key: 'k', type: GgufValueType.STRING, value: 3 }], [])).toThrow(/needs a string/);
    expect(() => buildGgufLayout([], [{ name: 'x'.repeat(64), dims: [8], typeId: 0 }])).toThrow(/63 bytes/);
  });
});

describe('ByteSink growth', () => {
  it('grows on a number write as on a byte write (the view is taken after reserving)', () => {
    const sink = new ByteSink(4);
    sink.u32(7);
    sink.u64(0x0102030405060708n);
    sink.f64(1.5);
    sink.i16(-2);
    const out = sink.result();
    const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
    expect(out.length).toBe(22);
    expect(view.getUint32(0, true)).toBe(7);
    expect(view.getBigUint64(4, true)).toBe(0x0102030405060708n);
    expect(view.getFloat64(12, true)).toBe(1.5);
    expect(view.getInt16(20, true)).toBe(-2);
  });
});
