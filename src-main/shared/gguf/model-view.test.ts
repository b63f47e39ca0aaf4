import { describe, expect, it } from 'vitest';
import { parseGgufHeader } from './reader.js';
import { GgufError, type GgufErrorCode } from './reader-errors.js';
import { buildModelView, checkModelView, layerOf, type GgufShard } from './model-view.js';
import { validateSplitSet, parseSplitName, splitFileName } from './split.js';
import { GgufValueType as V } from './ggml-types.js';
import { tinyModel, tinySpec, type TinyOptions } from './tiny-models.test-util.js';
import { splitSpec } from './split-set.test-util.js';

const shard = (bytes: Uint8Array, path = 'm.gguf'): GgufShard => ({ path, header: parseGgufHeader(bytes, bytes.length) });
const view = (o: TinyOptions) => {
  const s = shard(tinyModel(o));
  const v = buildModelView([s]);
  checkModelView(v, s.header);
  return v;
};
function semanticError(o: TinyOptions): GgufError {
  const s = shard(tinyModel(o));
  try {
    checkModelView(buildModelView([s]), s.header);
  } catch (e) {
    return e as GgufError;
  }
  throw new Error('expected a semantic error');
}

describe('buildModelView', () => {
  it('gives identity, shape, layers and byte totals equal to the tensors', () => {
    const bytes = tinyModel({ arch: 'llama', layers: 3, embd: 64, heads: 8, kvHeads: 2, ff: 96, vocab: 20, matType: 8 });
    const s = shard(bytes);
    const v = buildModelView([s]);
    expect(v.architecture).toBe('llama');
    expect(v.name).toBe('tiny-llama');
    expect(v.blockCount).toBe(3);
    expect(v.layers.map((l) => l.index)).toEqual([0, 1, 2]);
    expect(v.embeddingLength).toBe(64);
    expect(v.headCount).toBe(8);
    expect(v.headCountKv).toBe(2);
    expect(v.headDim).toBe(8);
    expect(v.vocabSize).toBe(20);
    expect(v.tokenizerModel).toBe('llama');
    expect(v.hasChatTemplate).toBe(true);
    expect(v.contextLength).toBe(256);
    expect(v.vocabOnly).toBe(false);
    // Totals equal the bytes of the file's tensor data exactly.
    const sumNbytes = s.header.tensors.reduce((a, t) => a + t.nbytes, 0);
    expect(v.tensorBytes).toBe(sumNbytes);
    expect(v.persistent.bytes + v.layers.reduce((a, l) => a + l.bytes, 0)).toBe(sumNbytes);
    expect(v.fileBytes).toBe(bytes.length);
    expect(v.parameterCount).toBe(s.header.tensors.reduce((a, t) => a + t.nElements, 0));
    expect(v.persistent.tensors.map((t) => t.name).sort()).toEqual(['output.weight', 'output_norm.weight', 'token_embd.weight']);
    const q = Object.fromEntries(v.quantization.map((r) => [r.type, r.tensors]));
    expect(q).toEqual({ Q8_0: 2 + 3 * 7, F32: 1 + 3 * 2 });
  });

  it('uses key_length for head_dim when given, and per-layer KV heads arrays', () => {
    expect(view({ extraKv: [{ key: 'llama.attention.key_length', type: V.UINT32, value: 16 }] }).headDim).toBe(16);
    const spec = tinySpec();
    spec.kv = (spec.kv ?? []).map((e) =>
      e.key === 'llama.attention.head_count_kv' ? { key: e.key, type: V.ARRAY, value: { elementType: V.INT32, items: [1, 2] } } : e,
    );
    const v = buildModelView([shard(buildBytes(spec))]);
    expect(v.headCountKvByLayer).toEqual([1, 2]);
    expect(v.headCountKv).toBe(2);
  });

  it('parses layer indices from blk.N. names only', () => {
    expect(layerOf('blk.12.attn_q.weight')).toBe(12);
    expect(layerOf('output.weight')).toBe(null);
    expect(layerOf('blk.x.attn_q.weight')).toBe(null);
  });

  for (const arch of ['qwen2', 'gptneox'] as const) {
    it(`accepts a complete ${arch} model`, () => {
      const v = view({ arch });
      expect(v.architecture).toBe(arch);
      expect(v.layers.length).toBe(2);
    });
  }
});

describe('semantic checks', () => {
  const expectCode = (e: GgufError, code: GgufErrorCode, re: RegExp) => {
    expect(e).toBeInstanceOf(GgufError);
    expect(e.code).toBe(code);
    expect(e.message).toMatch(re);
    expect(e.message).toMatch(/byte offset \d+/);
  };
  it('block_count above the layers that have tensors', () => {
    expectCode(semanticError({ blockCount: 5 }), 'BLOCK_COUNT', /block_count is 5 but tensors exist for only 2 layers \(layer 2 has none\)/);
  });
  it('a layer beyond block_count', () => {
    expectCode(semanticError({ layers: 3, blockCount: 2 }), 'BLOCK_COUNT', /belongs to layer 2 but block_count is 2/);
  });
  it('missing required tensors (llama)', () => {
    expectCode(semanticError({ omit: ['token_embd.weight'] }), 'MISSING_TENSOR', /requires tensors that are missing: token_embd.weight/);
    expectCode(semanticError({ omit: ['blk.1.ffn_down.weight'] }), 'MISSING_TENSOR', /blk.1.ffn_down.weight or blk.1.ffn_down_exps.weight/);
  });
  it('missing required tensors (gptneox, qwen2)', () => {
    expectCode(semanticError({ arch: 'gptneox', omit: ['blk.0.attn_qkv.bias'] }), 'MISSING_TENSOR', /blk.0.attn_qkv.bias/);
    expectCode(semanticError({ arch: 'qwen2', omit: ['output_norm.weight'] }), 'MISSING_TENSOR', /output_norm.weight/);
  });
  it('known keys of the wrong type', () => {
    const spec = tinySpec();
    spec.kv = (spec.kv ?? []).map((e) => (e.key === 'llama.block_count' ? { key: e.key, type: V.STRING, value: 'two' } : e));
    const bytes = buildBytes(spec);
    try {
      buildModelView([shard(bytes)]);
      throw new Error('no error');
    } catch (e) {
      expectCode(e as GgufError, 'BAD_METADATA', /'llama.block_count' must be an integer but is string/);
    }
  });
  it('vocab-only files (no tensors) pass', () => {
    const spec = tinySpec();
    spec.tensors = [];
    const s = shard(buildBytes(spec));
    const v = buildModelView([s]);
    expect(v.vocabOnly).toBe(true);
    expect(() => checkModelView(v, s.header)).not.toThrow();
  });
});

describe('split sets', () => {
  it('names: parse and format', () => {
    expect(parseSplitName('model-00002-of-00003.gguf')).toEqual({ prefix: 'model', no: 2, count: 3 });
    expect(parseSplitName('model.gguf')).toBe(null);
    expect(parseSplitName('model-00004-of-00003.gguf')).toBe(null);
    expect(splitFileName('a/b', 1, 12)).toBe('a/b-00001-of-00012.gguf');
  });
  it('a valid 3-shard set is one model with the same totals as the unsplit file', () => {
    const spec = tinySpec({ layers: 3 });
    const whole = buildModelView([shard(buildBytes(spec))]);
    const shards = splitSpec(spec, 3).map((b, i) => shard(b, splitFileName('m', i + 1, 3)));
    validateSplitSet(shards);
    const v = buildModelView(shards);
    checkModelView(v, shards[0]!.header);
    expect(v.tensorBytes).toBe(whole.tensorBytes);
    expect(v.layers.map((l) => l.bytes)).toEqual(whole.layers.map((l) => l.bytes));
    expect(v.shards.length).toBe(3);
    expect(new Set(v.tensors.map((t) => t.shard))).toEqual(new Set([0, 1, 2]));
  });
  const bad = (tweak: Parameters<typeof splitSpec>[2], re: RegExp) => {
    const shards = splitSpec(tinySpec({ layers: 3 }), 3, tweak).map((b, i) => shard(b, splitFileName('m', i + 1, 3)));
    let err: unknown;
    try {
      validateSplitSet(shards);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GgufError);
    expect((err as GgufError).code).toBe('SPLIT');
    expect((err as GgufError).message).toMatch(re);
  };
  it('wrong split.count, split.no, tensors.count, architecture are refused', () => {
    bad((i, kv) => kv.map((e) => (i === 1 && e.key === 'split.count' ? { ...e, value: 4 } : e)), /split.count is 4 but the set has 3 files/);
    bad((i, kv) => kv.map((e) => (i === 2 && e.key === 'split.no' ? { ...e, value: 1 } : e)), /split.no is 1 but the file is shard 3 of 3/);
    bad((i, kv) => kv.map((e) => (i === 2 && e.key === 'split.tensors.count' ? { ...e, value: 99 } : e)), /shards of different models/);
    bad((i, kv) => (i === 1 ? [...kv, { key: 'general.architecture', type: V.STRING, value: 'qwen2' }] : kv), /architecture 'qwen2' differs/);
    bad((_i, kv) => kv.map((e) => (e.key === 'split.tensors.count' ? { ...e, value: 7 } : e)), /split.tensors.count is 7 but the 3 shards hold/);
  });
  it('a lone first shard of a larger set is refused', () => {
    const [first] = splitSpec(tinySpec(), 2);
    expect(() => validateSplitSet([shard(first!)])).toThrow(/shard 1 of a 2-file split set/);
  });
});

import { buildGguf, type GgufSpec } from './build-gguf.test-util.js';
function buildBytes(spec: GgufSpec): Uint8Array {
  return buildGguf(spec).bytes;
}
