import { describe, expect, it } from 'vitest';
import { planMemory, PlanInputError, weightsReadPerToken, type MemoryPlan } from './plan.js';
import { headroomBytes } from './stream-select.js';
import { parseGgufHeader } from '../gguf/reader.js';
import { buildModelView, type ModelView } from '../gguf/model-view.js';
import { buildGguf, tensorBytes } from '../gguf/build-gguf.test-util.js';
import { tinySpec, type TinyOptions } from '../gguf/tiny-models.test-util.js';
import { GgufValueType as V } from '../gguf/ggml-types.js';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** A model view of real size built from a header only (the payload is never materialised). */
function headerOnlyView(o: TinyOptions): ModelView {
  const spec = tinySpec(o);
  const { bytes, offsets } = buildGguf({ ...spec, dataBytes: 0 });
  let end = 0;
  for (const t of spec.tensors ?? []) end = Math.ceil(end / 32) * 32 + tensorBytes(t);
  const h = parseGgufHeader(bytes, offsets.dataOffset + end);
  return buildModelView([{ path: 'model.gguf', header: h }]);
}

// Llama-3-8B's shape at Q4_0 (vocab cut to 32k to keep the test header small).
const eightB = (): ModelView => headerOnlyView({ arch: 'llama', layers: 32, embd: 4096, heads: 32, kvHeads: 8, ff: 14336, vocab: 32000, matType: 2 });
// Depth 2 explicitly: the expectations below are written for a read-ahead of 2 (reserve = 3 layers).
const base = { ctx: 4096, diskBandwidthBytesPerS: 2 * GiB, prefetchDepth: 2 };

function allFormulas(p: MemoryPlan): void {
  for (const [k, v] of Object.entries(p.quantities)) {
    expect(typeof v.formula, k).toBe('string');
    expect(v.formula.length, k).toBeGreaterThan(5);
  }
}

describe('planMemory', () => {
  it('KV cache: 2 × n_kv_heads × head_dim × ctx × bytes per layer', () => {
    const v = eightB();
    const p = planMemory(v, { ...base, ramBytes: 64 * GiB });
    expect(p.quantities.kvBytesPerLayer.value).toBe(2 * 8 * 128 * 4096 * 2);
    expect(p.quantities.kvBytesPerLayer.value).toBe(16 * MiB);
    expect(p.quantities.kvBytesTotal.value).toBe(32 * 16 * MiB);
    expect(p.quantities.kvBytesPerLayer.formula).toMatch(/2 × n_kv_heads 8 × head_dim 128 × ctx 4096 × 2 B/);
    const p8 = planMemory(v, { ...base, ctx: 1024, kvTypeBytes: 1, ramBytes: 64 * GiB });
    expect(p8.quantities.kvBytesPerLayer.value).toBe(2 * 8 * 128 * 1024 * 1);
  });

  it('fits: every layer resident, nothing read per token, RAM used = fixed + layers + headroom', () => {
    const v = eightB();
    const p = planMemory(v, { ...base, ramBytes: 64 * GiB });
    expect(p.verdict).toBe('fits');
    expect(p.tiers.pinned.layers.length).toBe(32);
    expect(p.tiers.streamed.layers).toEqual([]);
    expect(p.stream).toBeNull();
    expect(p.quantities.bytesReadPerToken.value).toBe(0);
    expect(p.quantities.floorBytesPerToken.value).toBe(0);
    const layers = v.layers.reduce((a, l) => a + l.bytes, 0);
    expect(p.quantities.ramUsedBytes.value).toBe((p.quantities.fixedRamBytes.value as number) + layers + headroomBytes(64 * GiB));
    expect(p.quantities.predictedDecodeTokS.value).toBeGreaterThan(0);
    allFormulas(p);
  });

  it('out-of-core at half the model: the budget after fixed costs, window and headroom stays resident, the rest streams, every layer alike', () => {
    const v = eightB();
    const ram = Math.floor(v.fileBytes / 2);
    const p = planMemory(v, { ...base, ramBytes: ram });
    expect(p.verdict).toBe('out-of-core');
    const s = p.stream!;
    expect(s.tensors.length).toBeGreaterThan(0);
    // Streamed bytes are what each token reads, and what the layers stream adds up to it.
    const streamed = v.tensors.filter((t) => s.tensors.includes(t.name)).reduce((a, t) => a + t.nbytes, 0);
    expect(p.quantities.bytesReadPerToken.value).toBe(streamed);
    expect(p.layers.reduce((a, l) => a + l.streamedBytes, 0)).toBe(streamed);
    // Spread: every layer streams about the same share (within one tensor of each other).
    const shares = p.layers.map((l) => l.streamedBytes);
    const biggest = Math.max(...v.tensors.filter((t) => t.layer !== null).map((t) => t.nbytes));
    expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(biggest);
    // The whole budget is spent and no more: fixed + resident + window + headroom ≤ cap, and one
    // tensor fewer streamed would not fit.
    const used = p.quantities.ramUsedBytes.value as number;
    expect(used).toBeLessThanOrEqual(ram);
    const smallest = Math.min(...v.tensors.filter((t) => s.tensors.includes(t.name)).map((t) => t.nbytes));
    expect(used + smallest).toBeGreaterThan(ram - biggest);
    // Window = (read-ahead 2 + 1) × the largest streamable tensor.
    expect(s.windowBytes).toBe(3 * biggest);
    // The floor: weights per token − (cap − non-weight), and the plan reads within a window of it.
    const floor = p.quantities.floorBytesPerToken.value as number;
    expect(floor).toBe(weightsReadPerToken(v) - (ram - ((p.quantities.fixedRamBytes.value as number) - (weightsReadPerToken(v) - p.layers.reduce((a, l) => a + l.bytes, 0)))));
    expect(streamed).toBeGreaterThanOrEqual(floor);
    expect(streamed - floor).toBeLessThanOrEqual(s.windowBytes + s.readaheadBytes + s.headroomBytes + biggest);
    expect(p.quantities.predictedDecodeTokS.value).toBeCloseTo((2 * GiB) / streamed, 6);
    expect(p.reason).toMatch(/stream part of their weights/);
    allFormulas(p);
  });

  it('cannot-run below the minimum working set, naming the smallest cap that runs', () => {
    const v = eightB();
    const probe = planMemory(v, { ...base, ramBytes: 64 * GiB });
    const min = probe.quantities.minimumRamBytes.value as number;
    const biggest = Math.max(...v.tensors.filter((t) => t.layer !== null).map((t) => t.nbytes));
    // Fixed costs + a window of 3 tensors + read-ahead, with headroom.
    expect(min).toBeGreaterThan((probe.quantities.fixedRamBytes.value as number) + 3 * biggest);
    const below = planMemory(v, { ...base, ramBytes: min - 1 });
    expect(below.verdict).toBe('cannot-run');
    expect(below.quantities.minimumRamBytes.value).toBe(min);
    expect(below.reason).toMatch(/smallest cap that runs is/);
    expect(below.quantities.predictedDecodeTokS.value).toBe(null);
    const at = planMemory(v, { ...base, ramBytes: min });
    expect(at.verdict).toBe('out-of-core');
    expect(at.tiers.streamed.layers.length).toBe(32);
  });

  it('prefetch depth changes the streaming window and the minimum', () => {
    const v = eightB();
    const d0 = planMemory(v, { ...base, ramBytes: 64 * GiB, prefetchDepth: 0 });
    const d4 = planMemory(v, { ...base, ramBytes: 64 * GiB, prefetchDepth: 4 });
    const biggest = Math.max(...v.tensors.filter((t) => t.layer !== null).map((t) => t.nbytes));
    const diff = (d4.quantities.minimumRamBytes.value as number) - (d0.quantities.minimumRamBytes.value as number);
    // 4 more tensors in the window, plus the headroom that grows with the cap.
    expect(diff).toBeGreaterThanOrEqual(4 * biggest);
    expect(diff).toBeLessThan(4 * biggest * 1.02 + 2);
  });

  it('VRAM takes the output head and the last layers, with their KV (place-vram.test.ts has the rest)', () => {
    const v = eightB();
    const layer = v.layers[0]!.bytes + 16 * MiB;
    const head = v.tensors.filter((t) => t.name.startsWith('output')).reduce((s, t) => s + t.nbytes, 0);
    const p = planMemory(v, { ...base, ramBytes: 64 * GiB, vramBytes: p0Compute(v) + head + 4 * layer + 1 });
    expect(p.tiers.vram.layers).toEqual([28, 29, 30, 31]);
    expect(p.quantities.vramUsedBytes.value).toBe(p0Compute(v) + head + 4 * layer);
    expect(p.quantities.kvRamBytes.value).toBe(28 * 16 * MiB);
  });

  it('refuses nonsense input and weightless files', () => {
    const v = eightB();
    expect(() => planMemory(v, { ...base, ctx: 0, ramBytes: GiB })).toThrow(PlanInputError);
    expect(() => planMemory(v, { ...base, ramBytes: -1 })).toThrow(/RAM budget/);
    expect(() => planMemory(v, { ...base, ramBytes: GiB, diskBandwidthBytesPerS: 0 })).toThrow(/disk bandwidth/);
    const spec = tinySpec();
    spec.tensors = [];
    const b = buildGguf(spec).bytes;
    const vocabOnly = buildModelView([{ path: 'v.gguf', header: parseGgufHeader(b, b.length) }]);
    expect(() => planMemory(vocabOnly, { ...base, ramBytes: GiB })).toThrow(/vocab-only/);
  });

  it('plans the three architectures from small real headers', () => {
    for (const arch of ['llama', 'qwen2', 'gptneox'] as const) {
      const spec = tinySpec({ arch });
      const b = buildGguf(spec).bytes;
      const view = buildModelView([{ path: 'm.gguf', header: parseGgufHeader(b, b.length) }]);
      const p = planMemory(view, { ...base, ctx: 256, ramBytes: GiB });
      expect(p.verdict, arch).toBe('fits');
      expect(p.layers.reduce((a, l) => a + l.bytes, 0) + (p.quantities.persistentBytes.value as number)).toBe(view.tensorBytes);
      expect(p.model.blockCount).toBe(2);
    }
  });

  it('uses per-layer KV head counts when the file gives them', () => {
    const spec = tinySpec({ layers: 2 });
    spec.kv = (spec.kv ?? []).map((e) => (e.key === 'llama.attention.head_count_kv' ? { key: e.key, type: V.ARRAY, value: { elementType: V.INT32, items: [1, 4] } } : e));
    const b = buildGguf(spec).bytes;
    const view = buildModelView([{ path: 'm.gguf', header: parseGgufHeader(b, b.length) }]);
    const p = planMemory(view, { ...base, ctx: 100, ramBytes: GiB });
    expect(p.layers.map((l) => l.kvBytes)).toEqual([2 * 1 * 8 * 100 * 2, 2 * 4 * 8 * 100 * 2]);
  });
});

function p0Compute(v: ModelView): number {
  return planMemory(v, { ...base, ramBytes: 64 * GiB }).quantities.computeBufferBytes.value as number;
}

describe('a server\'s embeddings context', () => {
  it('is inside the plan when the run serves an API: its KV and compute buffer raise fixed RAM and the minimum', () => {
    const v = eightB();
    const alone = planMemory(v, { ...base, ramBytes: 3 * GiB, ubatch: 128 });
    const serving = planMemory(v, { ...base, ramBytes: 3 * GiB, ubatch: 128, serving: true });
    expect(alone.quantities.embeddingsBytes.value).toBe(0);
    // 128 tokens (the micro-batch) in a context llama.cpp pads to 256: KV 32 layers × 2 × 8 heads
    // × 128 × 256 tokens × 2 B, a 128-token compute buffer, one output row of logits.
    const kv = 32 * 2 * 8 * 128 * 256 * 2;
    const compute = 4 * 128 * Math.max(32000, 32 * 128) + 4 * 128 * (4096 + 14336);
    const output = 4 * 32000;
    expect(serving.quantities.embeddingsBytes.value).toBe(kv + compute + output);
    expect(serving.quantities.fixedRamBytes.value).toBe((alone.quantities.fixedRamBytes.value as number) + kv + compute + output);
    expect(serving.quantities.minimumRamBytes.value).toBeGreaterThan(alone.quantities.minimumRamBytes.value as number);
    expect(serving.input.serving).toBe(true);
  });
});
