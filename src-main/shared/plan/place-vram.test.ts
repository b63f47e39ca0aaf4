import { describe, expect, it } from 'vitest';
import Ajv from 'ajv';
import { planMemory, type MemoryPlan } from './plan.js';
import { PLAN_JSON_SCHEMA } from './plan-schema.js';
import { EXPERT_TENSOR_PATTERN } from './place-vram.js';
import { formatPlan } from './plan-format.js';
import { parseGgufHeader } from '../gguf/reader.js';
import { buildModelView, type ModelView } from '../gguf/model-view.js';
import { buildGguf, tensorBytes } from '../gguf/build-gguf.test-util.js';
import { tinySpec, type TinyOptions } from '../gguf/tiny-models.test-util.js';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const validate = new Ajv({ allErrors: true, strict: false }).compile(PLAN_JSON_SCHEMA);

function headerOnlyView(o: TinyOptions): ModelView {
  const spec = tinySpec(o);
  const { bytes, offsets } = buildGguf({ ...spec, dataBytes: 0 });
  let end = 0;
  for (const t of spec.tensors ?? []) end = Math.ceil(end / 32) * 32 + tensorBytes(t);
  return buildModelView([{ path: 'model.gguf', header: parseGgufHeader(bytes, offsets.dataOffset + end) }]);
}

function valid(p: MemoryPlan): MemoryPlan {
  expect(validate(JSON.parse(JSON.stringify(p))), JSON.stringify(validate.errors)).toBe(true);
  return p;
}

const eightB = (): ModelView => headerOnlyView({ arch: 'llama', layers: 32, embd: 4096, heads: 32, kvHeads: 8, ff: 14336, vocab: 32000, matType: 2 });
const mixtral = (): ModelView => headerOnlyView({ arch: 'llama', layers: 16, embd: 1024, heads: 16, kvHeads: 4, ff: 2816, vocab: 32000, matType: 2, experts: { count: 16, used: 2, skew: 0.35 } });
const base = { ctx: 4096, diskBandwidthBytesPerS: 2 * GiB, prefetchDepth: 2, readaheadBytes: 0 };
const bytesOf = (v: ModelView, pred: (n: string) => boolean): number => v.tensors.filter((t) => pred(t.name)).reduce((s, t) => s + t.nbytes, 0);
const head = (v: ModelView): number => bytesOf(v, (n) => n.startsWith('output.') || n.startsWith('output_norm.'));
const compute = (v: ModelView): number => planMemory(v, { ...base, ramBytes: 64 * GiB }).quantities.computeBufferBytes.value as number;

describe('the VRAM tier', () => {
  it('a dense model: the output head, then whole last layers with their KV, llama.cpp n_gpu_layers = blocks + 1', () => {
    const v = eightB();
    const layer = v.layers[0]!.bytes + 16 * MiB;
    const budget = compute(v) + head(v) + 4 * layer + 1;
    const p = valid(planMemory(v, { ...base, ramBytes: 64 * GiB, vramBytes: budget, gpuDevice: 'Vulkan0' }));
    expect(p.tiers.vram.layers).toEqual([28, 29, 30, 31]);
    expect(p.gpu).toMatchObject({ device: 'Vulkan0', gpuLayers: 5, mode: 'layers', outputOnDevice: true, cpuTensors: [] });
    expect(p.quantities.vramUsedBytes.value).toBe(budget - 1);
    expect(p.quantities.vramUsedBytes.value).toBeLessThanOrEqual(budget);
    // KV of the offloaded layers is on the device, the rest in RAM.
    expect(p.quantities.kvRamBytes.value).toBe(28 * 16 * MiB);
    // RAM holds neither those layers nor the head.
    const cpu = planMemory(v, { ...base, ramBytes: 64 * GiB });
    expect((cpu.quantities.fullResidencyRamBytes.value as number) - (p.quantities.fullResidencyRamBytes.value as number)).toBeGreaterThanOrEqual(4 * layer + head(v) - 1);
  });

  it('a budget below compute + head offloads nothing; no budget leaves the plan as it was', () => {
    const v = eightB();
    const p = valid(planMemory(v, { ...base, ramBytes: 64 * GiB, vramBytes: compute(v) }));
    expect(p.gpu).toMatchObject({ gpuLayers: 0, mode: 'none', layers: [] });
    expect(p.tiers.vram.layers).toEqual([]);
    const cpu = planMemory(v, { ...base, ramBytes: 8 * GiB });
    expect(cpu.gpu).toBeUndefined();
    expect(cpu.quantities.vramUsedBytes.value).toBeNull();
  });

  it('larger than VRAM + RAM: three tiers, each with bytes, and a predicted speed above the CPU-only plan', () => {
    const v = eightB();
    const vram = 1 * GiB;
    const ram = 2 * GiB;
    expect(v.tensorBytes).toBeGreaterThan(vram + ram);
    const p = valid(planMemory(v, { ...base, ramBytes: ram, vramBytes: vram }));
    expect(p.verdict).toBe('out-of-core');
    // VRAM holds whole layers; in RAM the stream schedule locks part of each remaining layer
    // and streams the rest (tensor-granular, so a RAM layer is 'streamed' with most of it locked).
    expect(p.tiers.vram.layers.length).toBeGreaterThan(0);
    expect(p.tiers.vram.bytes).toBeGreaterThan(0);
    expect(p.quantities.pinnedBytes.value).toBeGreaterThan(0);
    expect(p.quantities.bytesReadPerToken.value).toBeGreaterThan(0);
    expect(formatPlan(p)).toMatch(/Tiers\n  VRAM .*\n  RAM .*locked.*\n  storage .*streamed/);
    expect(p.quantities.vramUsedBytes.value).toBeLessThanOrEqual(vram);
    const cpu = planMemory(v, { ...base, ramBytes: ram });
    expect(p.quantities.predictedDecodeTokS.value).toBeGreaterThan(cpu.quantities.predictedDecodeTokS.value as number);
    expect(p.quantities.bytesReadPerToken.value).toBeLessThan(cpu.quantities.bytesReadPerToken.value as number);
  });

  it('a mixture of experts smaller in VRAM than its experts: the dense part of every layer on the device, experts in RAM', () => {
    const v = mixtral();
    const experts = v.moe!.expertBytes;
    const denseLayers = v.layers.reduce((s, l) => s + l.bytes, 0) - experts;
    const kv = planMemory(v, { ...base, ramBytes: 64 * GiB }).quantities.kvBytesTotal.value as number;
    const budget = compute(v) + head(v) + denseLayers + kv + 8 * MiB;
    expect(budget).toBeLessThan(experts);
    const p = valid(planMemory(v, { ...base, ramBytes: 64 * GiB, vramBytes: budget }));
    expect(p.gpu).toMatchObject({ mode: 'dense-first', gpuLayers: 17, cpuTensors: [EXPERT_TENSOR_PATTERN], expertLayers: [] });
    expect(p.gpu!.layers).toEqual(v.layers.map((l) => l.index));
    expect(p.gpu!.quantities.layerWeightBytes.value).toBe(denseLayers);
    // Experts are RAM's (locked here: the cap holds them), so no layer is wholly in VRAM.
    expect(p.layers.every((l) => l.tier !== 'vram')).toBe(true);
    expect(p.moe!.quantities.denseLayerBytes.value).toBe(0);
    expect(p.quantities.kvRamBytes.value).toBe(0);
    // The pattern names exactly the expert tensors.
    const re = new RegExp(EXPERT_TENSOR_PATTERN);
    expect(v.tensors.filter((t) => re.test(t.name)).map((t) => t.name)).toEqual(v.moe!.layers.flatMap((l) => l.expertTensors));
  });

  it('a mixture of experts with room beyond its dense part: the experts of the last layers go too, whole layers', () => {
    const v = mixtral();
    const experts = v.moe!.expertBytes;
    const denseLayers = v.layers.reduce((s, l) => s + l.bytes, 0) - experts;
    const kv = planMemory(v, { ...base, ramBytes: 64 * GiB }).quantities.kvBytesTotal.value as number;
    const perLayer = v.moe!.layers[0]!.expertBytes;
    const budget = compute(v) + head(v) + denseLayers + kv + 3 * perLayer + MiB;
    const p = valid(planMemory(v, { ...base, ramBytes: 64 * GiB, vramBytes: budget }));
    expect(p.gpu).toMatchObject({ mode: 'dense-first', gpuLayers: 17, expertLayers: [13, 14, 15] });
    expect(p.tiers.vram.layers.length).toBe(16);
    expect(p.layers.filter((l) => l.tier === 'vram').map((l) => l.index)).toEqual([13, 14, 15]);
    // The CPU keeps the experts of layers 0–12 and only those.
    const re = new RegExp(p.gpu!.cpuTensors[0]!);
    expect(v.tensors.filter((t) => re.test(t.name)).map((t) => t.layer)).toEqual(v.moe!.layers.filter((l) => l.index < 13).flatMap((l) => l.expertTensors.map(() => l.index)));
    // The expert cache is RAM's: the 13 layers whose experts stay there.
    expect(p.moe!.layers).toEqual([...Array(13).keys()]);
    expect(p.quantities.vramUsedBytes.value).toBeLessThanOrEqual(budget);
  });

  it('a mixture of experts that fits whole goes whole', () => {
    const v = mixtral();
    const p = valid(planMemory(v, { ...base, ramBytes: 64 * GiB, vramBytes: 8 * GiB }));
    expect(p.gpu).toMatchObject({ mode: 'layers', gpuLayers: 17, cpuTensors: [] });
    expect(p.tiers.vram.layers.length).toBe(16);
    expect(p.moe).toBeUndefined();
  });
});
